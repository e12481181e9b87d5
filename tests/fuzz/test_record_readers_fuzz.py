"""Hostile records to the readers that accepted garbage: judge transcripts (`judge core`),
human labels and judged records (`judge agree`), KB records (every KB loader).  Each case: exit
3, a message naming file, line and field, the input byte-identical, no output written."""
from __future__ import annotations

import json
import shutil

import pytest

from trace_crs.cli import main
from trace_crs.judge.factors import FACTORS

OK_TURNS = [{"role": "user", "text": "A quiet Thai place?"}, {"role": "assistant", "text": "Try Siam [R1]."}]


def transcript(**over) -> dict:
    return {"dialogue_id": "d1", "turns": OK_TURNS} | over


TRANSCRIPTS = {
    "empty user text": (transcript(turns=[{"role": "user", "text": ""}, OK_TURNS[1]]), "turns.0"),
    "whitespace user text": (transcript(turns=[{"role": "user", "text": " \t\n"}, OK_TURNS[1]]), "turns.0"),
    "zero-width user text": (transcript(turns=[{"role": "user", "text": "\u200b"}, OK_TURNS[1]]), "turns.0"),
    "only the user speaks": (transcript(turns=[OK_TURNS[0], OK_TURNS[0]]), "turns"),
    "only the system speaks": (transcript(turns=[OK_TURNS[1]]), "turns"),
    "unknown role": (transcript(turns=[OK_TURNS[0], {"role": "bot", "text": "hi"}]), "turns.1.role"),
    "system role": (transcript(turns=[{"role": "system", "text": "be nice"}, *OK_TURNS]), "turns.0.role"),
    "history leaves only the user": (transcript(turns=[OK_TURNS[1], OK_TURNS[0]], history_turns=1), "<record>"),
    "blank dialogue_id": (transcript(dialogue_id="   "), "dialogue_id"),
    "zero-width dialogue_id": (transcript(dialogue_id="d\u200b1"), "dialogue_id"),
    "control char dialogue_id": (transcript(dialogue_id="d\x071"), "dialogue_id"),
    "text not a string": (transcript(turns=[{"role": "user", "text": 5}, OK_TURNS[1]]), "turns.0.text"),
    "unknown key": (transcript(speaker="x"), "speaker"),
}


@pytest.mark.parametrize("case", sorted(TRANSCRIPTS))
def test_judge_core_refuses_bad_transcripts(case, tmp_path, capsys):
    rec, field = TRANSCRIPTS[case]
    good = transcript(dialogue_id="d0")
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(rec) + "\n")
    before = path.read_bytes()
    out = tmp_path / "o.jsonl"
    assert main(["judge", "core", "--transcripts", str(path), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert f"{path}:2: field '{field}'" in err, err
    assert path.read_bytes() == before and not out.exists()


def judged(dialogue_id="d1", **over) -> dict:
    return {"dialogue_id": dialogue_id, "system": "s", "factors": dict.fromkeys(FACTORS, 2), "core_avg": 2.0,
            "debate": {"score": 50}, "mode": "per-factor", "usage": {"calls": 12}} | over


def human(dialogue_id="d1", **over) -> dict:
    return {"dialogue_id": dialogue_id, "factors": {"coherence": 3}, "overall": 70} | over


HUMAN = {
    "overall 150 on a 0-100 scale": (human(overall=150), "overall"),
    "overall negative": (human(overall=-1), "overall"),
    "overall NaN": ('{"dialogue_id": "d1", "overall": NaN}', "overall"),
    "overall Infinity": ('{"dialogue_id": "d1", "overall": Infinity}', "overall"),
    "overall a string": (human(overall="70"), "overall"),
    "overall a bool": (human(overall=True), "overall"),
    "factor 5": (human(factors={"coherence": 5}), "factors.coherence"),
    "factor -1": (human(factors={"coherence": -1}), "factors.coherence"),
    "factor 2.5": (human(factors={"coherence": 2.5}), "factors.coherence"),
    "factor a string": (human(factors={"coherence": "3"}), "factors.coherence"),
    "unknown factor": (human(factors={"cohesion": 1}), "factors"),
    "blank dialogue_id": (human(dialogue_id=" "), "dialogue_id"),
    "zero-width dialogue_id": (human(dialogue_id="d\u200b1"), "dialogue_id"),
    "missing dialogue_id": ({"overall": 3}, "dialogue_id"),
    "duplicate dialogue_id": (human(dialogue_id="d0"), "dialogue_id"),
}
JUDGED = {
    "core_avg 999": (judged(core_avg=999), "core_avg"),
    "core_avg negative": (judged(core_avg=-0.5), "core_avg"),
    "debate score 150": (judged(debate={"score": 150}), "debate.score"),
    "recall 2": (judged(recall=2), "recall"),
    "factor 7": (judged(factors=dict.fromkeys(FACTORS, 7)), "factors.coherence"),
    "usage negative": (judged(usage={"calls": -3}), "usage.calls"),
    "factors missing": ({k: v for k, v in judged().items() if k != "factors"}, "factors"),
}


def _line(rec) -> str:  # noqa: ANN001
    return rec if isinstance(rec, str) else json.dumps(rec)


@pytest.mark.parametrize("case", sorted(HUMAN))
def test_judge_agree_refuses_bad_human_labels(case, tmp_path, capsys):
    rec, field = HUMAN[case]
    pred, labels = tmp_path / "p.jsonl", tmp_path / "h.jsonl"
    pred.write_text(json.dumps(judged("d0")) + "\n" + json.dumps(judged("d1")) + "\n")
    labels.write_text(json.dumps(human("d0")) + "\n" + _line(rec) + "\n")
    before = labels.read_bytes()
    out = tmp_path / "agree.json"
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(labels), "--out", str(out), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert f"{labels}:2: field '{field}'" in err, err
    assert labels.read_bytes() == before and not out.exists()


@pytest.mark.parametrize("case", sorted(JUDGED))
def test_judge_agree_refuses_bad_judged_records(case, tmp_path, capsys):
    rec, field = JUDGED[case]
    pred, labels = tmp_path / "p.jsonl", tmp_path / "h.jsonl"
    pred.write_text(json.dumps(judged("d0")) + "\n" + _line(rec) + "\n")
    labels.write_text(json.dumps(human("d0")) + "\n" + json.dumps(human("d1")) + "\n")
    out = tmp_path / "agree.json"
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(labels), "--out", str(out), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert f"{pred}:2: field '{field}'" in err, err
    assert not out.exists()


def test_judge_agree_accepts_the_boundaries(tmp_path):
    """The ranges' ends are valid: overall 0 and 100, ratings 0 and 4, null = unrated."""
    pred, labels = tmp_path / "p.jsonl", tmp_path / "h.jsonl"
    pred.write_text("".join(json.dumps(judged(f"d{i}", core_avg=c)) + "\n" for i, c in enumerate([0, 4, None])))
    labels.write_text("".join(json.dumps(human(f"d{i}", overall=o, factors={"coherence": f})) + "\n"
                              for i, (o, f) in enumerate([(0, 0), (100, 4), (None, None)])))
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(labels), "--out", str(tmp_path / "a.json"),
                 "--quiet"]) == 0


KB_CASES = {  # (file, line to corrupt (1-based), field, new value)
    "blank business_id": ("pois.jsonl", 2, "business_id", "   "),
    "zero-width business_id": ("pois.jsonl", 2, "business_id", "\u200b"),
    "control char business_id": ("pois.jsonl", 2, "business_id", "P\x00"),
    "blank review_id": ("reviews.jsonl", 3, "review_id", " \t"),
    "zero-width review_id": ("reviews.jsonl", 3, "review_id", "r\u200d"),
    "review's business_id blank": ("reviews.jsonl", 3, "business_id", ""),
    "duplicate business_id": ("pois.jsonl", 2, "business_id", None),  # None: copy line 1's id
    "duplicate review_id": ("reviews.jsonl", 3, "review_id", None),
}


@pytest.mark.parametrize("case", sorted(KB_CASES))
def test_kb_loaders_refuse_bad_ids(case, corpus, tmp_path, capsys):
    kb, _ = corpus
    bad = tmp_path / "kb"
    shutil.copytree(kb, bad)
    name, lineno, field, value = KB_CASES[case]
    path = bad / name
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[lineno - 1][field] = rows[0][field] if value is None else value
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = path.read_bytes()
    out = tmp_path / "stats.json"
    assert main(["kb", "stats", "--kb", str(bad), "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert f"{path}:{lineno}: field '{field}'" in err, err
    assert path.read_bytes() == before and not out.exists()
