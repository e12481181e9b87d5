"""``trace-crs judge`` end to end with a DummyLM in place of the judge model."""
import json
from pathlib import Path

import pytest
from dspy.utils import DummyLM

from trace_crs.cli import judge as judge_cli
from trace_crs.cli import main
from trace_crs.judge.factors import FACTORS

FIXTURES = Path(__file__).parent / "fixtures"
SHARED = [Path(__file__).resolve().parents[n] / "shared/data/foreign-transcripts/crsarena-5.jsonl" for n in (2, 3, 4)]


def scripted(rating="3", score="60"):
    # keys are matched against the request's last message: a factor guideline or a debater's results
    return DummyLM({"<evaluation_guideline factor=": {"rationale": "fine", "rating": rating},
                    '"dimension_name"': {"statement": "agreed", "score": score}})


@pytest.fixture
def fake_lm(monkeypatch):
    lms = []

    def open_judge_lm(cfg, stack):
        lms.append(scripted())
        return lms[-1], f"dummy/{cfg.model}"
    monkeypatch.setattr(judge_cli, "open_judge_lm", open_judge_lm)
    return lms


def lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def test_foreign_fixture_end_to_end_with_debate(tmp_path, fake_lm, capsys):
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    assert main(["judge", "transcripts", "--generic", str(FIXTURES / "movie_crs.jsonl"), "--out", str(t)]) == 0
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--aggregator", "debate",
                 "--set", "lm.model=openai/x"]) == 0
    recs = lines(o)
    assert [r["dialogue_id"] for r in recs] == ["movie_a", "movie_b", "movie_c"]
    r = recs[0]
    assert set(r["factors"]) == set(FACTORS) and set(r["factors"].values()) == {3} and r["core_avg"] == 3.0
    assert r["debate"]["score"] == 60.0 and r["debate"]["rounds"] == 1 and r["debate"]["unanimous"]
    assert [c["evaluator"] for c in r["debate"]["chat"]] == ["Common User", "Domain Expert", "Linguist", "HCI Expert"]
    assert r["judge"] == "dummy/openai/x" and r["system"] == "kbrd" and r["failures"] == {} and r["mode"] == "per-factor"
    assert len(fake_lm[0].history) == 3 * (12 + 4)                           # 12 factor calls + one debate round each
    assert not (tmp_path / "o.jsonl.partial").exists()
    before = o.read_bytes()
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--aggregator", "debate",
                 "--set", "lm.model=openai/x"]) == 0
    assert o.read_bytes() == before and len(fake_lm[1].history) == 0         # rerun: every record reused


def test_resume_from_partial_and_subset(tmp_path, fake_lm):
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURES / "movie_crs.jsonl"), "--out", str(t)])
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "2"]) == 0
    first = lines(o)
    assert len(first) == 2 and all(r["debate"] is None for r in first)
    partial = tmp_path / "o.jsonl.partial"
    partial.write_text(json.dumps(first[0]) + "\n" + '{"truncated')          # a run killed mid-write
    o.unlink()
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o)]) == 0
    assert len(lines(o)) == 3 and len(fake_lm[1].history) == 2 * 12           # only the 2 not cached


def test_one_call_mode_is_labelled(tmp_path, monkeypatch):
    full = {"rationales": {n: "r" for n in FACTORS}, "ratings": {n: 1 for n in FACTORS}}
    monkeypatch.setattr(judge_cli, "open_judge_lm", lambda cfg, stack: (DummyLM([full] * 3), "dummy"))
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURES / "movie_crs.jsonl"), "--out", str(t)])
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--mode", "one-call"]) == 0
    assert {(r["mode"], r["core_avg"]) for r in lines(o)} == {("one-call", 1.0)}


def test_mixture_uses_the_table(tmp_path, monkeypatch):
    made = {}

    def open_judge_lm(cfg, stack):
        made[cfg.model] = scripted(rating="4" if cfg.model == "openai/good" else "0")
        return made[cfg.model], cfg.model
    monkeypatch.setattr(judge_cli, "open_judge_lm", open_judge_lm)
    table = tmp_path / "m.yaml"
    table.write_text("judges: {a: {model: openai/good}, b: {model: openai/bad}}\ndefault: b\n"
                     "factors: {coherence: a, groundness: a, novelty: a}\n")
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    main(["judge", "transcripts", "--generic", str(FIXTURES / "movie_crs.jsonl"), "--out", str(t)])
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o), "--aggregator", "mixture",
                 "--mixture", str(table)]) == 0
    r = lines(o)[0]
    assert r["judge"] == "mixture" and r["core_avg"] == pytest.approx(3 * 4 / 12)
    assert {n for n, v in r["factors"].items() if v == 4} == {"coherence", "groundness", "novelty"}


def test_errors_and_exit_codes(tmp_path, fake_lm, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"dialogue_id": "x", "turns": [{"role": "user", "text": "hi"}, {"role": "assistant", "text": "hey"}]}\n{"dialogue_id": "y", "turns": []}\n')
    assert main(["judge", "core", "--transcripts", str(bad), "--out", str(tmp_path / "o.jsonl")]) == 3
    assert f"{bad}:2: field 'turns'" in capsys.readouterr().err
    assert main(["judge", "core", "--transcripts", str(bad), "--out", str(bad)]) == 2
    assert main(["judge", "core", "--transcripts", str(bad), "--out", str(tmp_path / "o"), "--set", "model=x"]) == 2
    assert main(["judge", "core", "--transcripts", str(bad), "--out", str(tmp_path / "o"), "--aggregator", "mixture"]) == 2


def test_trace_dialogues_predictions_and_agree(tmp_path, kb, kb_dir, dialogues, fake_lm):
    d, t, o, h, a, p = (tmp_path / n for n in ("d.jsonl", "t.jsonl", "o.jsonl", "h.jsonl", "a.json", "p.jsonl"))
    d.write_text("".join(json.dumps(x) + "\n" for x in dialogues))
    assert main(["judge", "transcripts", "--dialogues", str(d), "--out", str(t)]) == 0
    recs = lines(t)
    assert len(recs) == 3 and recs[0]["turns"][3]["items"] == ["r3"] and recs[0]["system"] == "reference"
    p.write_text(json.dumps({"dialogue_id": "crs_test_00001", "turn_id": 4, "ranked_poi_ids": ["r2"], "text": "Taco Loco!"}) + "\n")
    assert main(["judge", "transcripts", "--dialogues", str(d), "--kb", str(kb_dir), "--predictions", str(p),
                 "--system", "tfidf", "--out", str(tmp_path / "tp.jsonl")]) == 0
    spliced = lines(tmp_path / "tp.jsonl")
    assert spliced[0]["system"] == "tfidf" and spliced[0]["turns"][3] == {
        "role": "assistant", "text": "Taco Loco!", "items": ["Taco Loco [Mexican, Restaurant; $]"]}
    assert spliced[0]["turns"][5]["text"] == ""                               # no prediction for turn 6
    assert main(["judge", "transcripts", "--dialogues", str(d), "--predictions", str(p), "--system", "x",
                 "--out", str(tmp_path / "x.jsonl")]) == 2                    # --predictions needs --kb
    assert main(["--quiet", "judge", "core", "--transcripts", str(t), "--out", str(o)]) == 0
    h.write_text("".join(json.dumps({"dialogue_id": r["dialogue_id"], "factors": {"coherence": c}, "overall": 10 * c,
                                     "system": "reference"}) + "\n" for r, c in zip(recs, (1, 3, 4))))
    assert main(["--quiet", "judge", "agree", "--pred", str(o), "--human", str(h), "--out", str(a)]) == 0
    got = json.loads(a.read_text())
    coh = next(r for r in got["factors"] if r["factor"] == "coherence")
    assert coh["n"] == 3 and coh["spearman"] is None                          # the judge gave 3 everywhere: undefined
    assert got["cost"][0]["calls"] == 0 and got["coupling_judge"]["n_pairs"] == 0


def test_run_export_same_dialogues_for_every_baseline(tmp_path, kb_dir, dialogues):
    d, run = tmp_path / "d.jsonl", tmp_path / "run"
    d.write_text("".join(json.dumps(x) + "\n" for x in dialogues))
    (run / "predictions").mkdir(parents=True)
    for b, poi in (("tfidf", "r1"), ("popularity", "r2")):
        (run / "predictions" / f"{b}.jsonl").write_text("".join(
            json.dumps({"dialogue_id": x["dialogue_id"], "turn_id": tid, "ranked_poi_ids": [poi], "text": b}) + "\n"
            for x in dialogues for tid in (4, 6)))
    (run / "dialogue_ids.json").write_text(json.dumps([x["dialogue_id"] for x in dialogues]))
    out = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--dialogues", str(d), "--kb", str(kb_dir), "--run", str(run), "--n", "2",
                 "--out", str(out)]) == 0
    got = lines(out)
    ids = [r["dialogue_id"] for r in got]
    assert len(ids) == 4 and {i.split("/")[0] for i in ids} == {"tfidf", "popularity"}
    assert {i.split("/")[1] for i in ids[:2]} == {i.split("/")[1] for i in ids[2:]}   # same seeded dialogues
    assert got[0]["turns"][3]["text"] == "popularity" and got[0]["system"] == "popularity"


@pytest.mark.skipif(not any(p.exists() for p in SHARED), reason="shared foreign transcripts not present")
def test_shared_crsarena_logs_convert(tmp_path):
    src = next(p for p in SHARED if p.exists())
    t = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--generic", str(src), "--out", str(t)]) == 0
    assert len(lines(t)) == 5 and all(x["turns"][0]["role"] == "user" for x in lines(t))
