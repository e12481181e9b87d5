"""`trace-crs dialogues` end to end on the tiny KB."""
from trace_crs.cli import main
from trace_crs.kb.store import sha256_file


def test_generate_validate_stats_release_hydrate(tmp_path, tiny_kb_dir, capsys):
    out = tmp_path / "d.jsonl"
    assert main(["dialogues", "generate", "--kb", str(tiny_kb_dir), "--n", "6", "--seed", "42", "--out", str(out)]) == 0
    assert main(["dialogues", "validate", str(out), "--kb", str(tiny_kb_dir)]) == 0
    assert "6 passed (100.0%)" in capsys.readouterr().out
    assert main(["dialogues", "stats", str(out), "--json", str(tmp_path / "s.json")]) == 0
    assert '"dialogues": 6' in (tmp_path / "s.json").read_text()
    rel, hyd = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    assert main(["dialogues", "release", str(out), "--kb", str(tiny_kb_dir), "--out", str(rel)]) == 0
    assert main(["dialogues", "hydrate", str(rel), "--kb", str(tiny_kb_dir), "--out", str(hyd)]) == 0
    assert sha256_file(hyd) == sha256_file(out)


def test_user_errors_exit_2(tmp_path, capsys):
    (tmp_path / "nokb").mkdir()
    assert main(["dialogues", "generate", "--kb", str(tmp_path / "nokb"), "--n", "3", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "not a KB directory" in capsys.readouterr().err
    assert main(["dialogues", "stats", str(tmp_path / "missing.jsonl")]) == 2


def test_stats_with_kb_adds_evidence_statistics(tmp_path, tiny_kb_dir):
    import json

    out, js = tmp_path / "d.jsonl", tmp_path / "s.json"
    assert main(["dialogues", "generate", "--kb", str(tiny_kb_dir), "--n", "6", "--seed", "42", "--out", str(out)]) == 0
    assert main(["dialogues", "stats", "--dialogues", str(out), "--kb", str(tiny_kb_dir), "--out", str(js)]) == 0
    stats = json.loads(js.read_text())
    dialogues = [json.loads(line) for line in out.read_text().splitlines()]
    # counted independently: every citation of a system turn, and dialogues with an avoided value
    n_cited = sum(len(t["citations"]) for d in dialogues for t in d["turns"] if t["role"] == "system")
    assert stats["quotes"]["n_quotes"] == n_cited and sum(stats["quotes"]["by_n_pois"].values()) == n_cited
    negated = sum(bool(d["scenario"]["hidden_preferences"].get("avoid")) for d in dialogues)
    assert stats["preferences"]["negated_dialogues"] == negated
    assert stats["preferences"]["gold_violations"] == {"avoid": 0, "either": 0}  # the generator's gold honours them
    assert stats["dialogues"] == 6  # the corpus statistics are still there
