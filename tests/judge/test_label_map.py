"""Human labels in another study's layout read through a declared mapping (``judge agree --human-map``)."""
from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from trace_crs.cli import main
from trace_crs.errors import DataError, UsageError
from trace_crs.judge import agree
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.label_map import load_map, qwk_reasons, read_mapped

LIKERT = """
name: likert-1-5
id: conv
annotator: rater
labels:
  coherent: {to: coherence, lo: 1, hi: 5, rescale: RESCALE}
  satisfaction: {to: overall, lo: 1, hi: 5, rescale: true}
ignore: [comment]
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def jsonl(tmp_path, name, rows):
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in rows))


def weighted_kappa(a, b, k=5):
    """Quadratic-weighted kappa written out from its definition (independent of sklearn):
    1 - sum(w * O) / sum(w * E), w_ij = (i - j)^2 / (k - 1)^2, O the joint and E the product of
    the marginal shares."""
    o = np.zeros((k, k))
    for i, j in zip(a, b):
        o[i, j] += 1
    o /= o.sum()
    e = np.outer(o.sum(1), o.sum(0))
    w = np.subtract.outer(np.arange(k), np.arange(k)) ** 2 / (k - 1) ** 2
    return 1 - (w * o).sum() / (w * e).sum()


def judged(tmp_path, coherence):
    rows = [{"dialogue_id": f"d{i}", "system": "s", "factors": {f: (c if f == "coherence" else None) for f in FACTORS},
             "core_avg": float(c)} for i, c in enumerate(coherence)]
    return jsonl(tmp_path, "pred.jsonl", rows)


def test_likert_1_to_5_hand_worked(tmp_path):
    judge = [0, 1, 2, 3, 4]
    human = [1, 2, 3, 5, 5]          # rescaled: 0, 1, 2, 4, 4
    m = load_map(write(tmp_path, "m.yaml", LIKERT.replace("RESCALE", "true")))
    assert qwk_reasons(m) == {}      # 1-5 rescaled onto 0-4: the five categories
    labels = jsonl(tmp_path, "h.jsonl", [{"conv": f"d{i}", "coherent": v, "satisfaction": v, "comment": "x"}
                                         for i, v in enumerate(human)])
    frame, report = read_mapped(labels, m)
    assert frame["coherence"].tolist() == [0, 1, 2, 4, 4] and frame["overall"].tolist() == [0, 25, 50, 100, 100]
    assert report["ignored"] == {"comment": 5} and report["never_seen"] == []
    pred = pd.DataFrame({"dialogue_id": [f"d{i}" for i in range(5)], **{f: np.nan for f in FACTORS}})
    pred["coherence"] = judge
    row = agree.factor_agreement(pred, frame, qwk_reasons(m)).set_index("factor").loc["coherence"]
    # by hand: sum wO = (1/5)(1/16); sum wE = (1/5)(30 + 15 + 10 + 2 * 30)/5/16 = 23/80 -> 1 - 1/23
    assert row["qwk"] == pytest.approx(22 / 23) == pytest.approx(weighted_kappa(judge, [0, 1, 2, 4, 4]))
    assert row["spearman"] == pytest.approx(stats.spearmanr(judge, [0, 1, 2, 4, 4]).statistic)
    assert row["kendall_tau_b"] == pytest.approx(stats.kendalltau(judge, [1, 2, 3, 5, 5]).statistic)
    assert row["qwk_note"] is None

    # the same labels not rescaled: 1-5 is not CoRE's 0-4, QWK undefined with the reason, correlations unchanged
    m = load_map(write(tmp_path, "m.yaml", LIKERT.replace("RESCALE", "false")))
    frame, _ = read_mapped(labels, m)
    table = agree.factor_agreement(pred, frame, qwk_reasons(m)).set_index("factor")
    assert math.isnan(table.loc["coherence", "qwk"]) and "{1, 2, 3, 4, 5} (not rescaled)" in table.loc["coherence", "qwk_note"]
    assert table.loc["coherence", "spearman"] == pytest.approx(row["spearman"])
    assert math.isnan(table.loc["all factors", "qwk"]) and "coherence" in table.loc["all factors", "qwk_note"]


def test_three_point_scale_rescaled_is_not_five_categories(tmp_path):
    m = load_map(write(tmp_path, "m.yaml", "name: x\nlabels:\n  u: {to: novelty, lo: 0, hi: 2, rescale: true}\n"))
    assert qwk_reasons(m) == {"novelty": "'u' on 0-2 gives categories {0, 2, 4} after rescaling, not CoRE's 0-4"}
    frame, _ = read_mapped(jsonl(tmp_path, "h.jsonl", [{"dialogue_id": "a", "u": 1}]), m)
    assert frame.loc[0, "novelty"] == 2.0


CRS_LAYOUT = """
name: turns
id: conv_id
dialogue_labels: dial
turns: dialogue
turn_labels: turn_scores
labels:
  relevance: {to: effectiveness, level: turn, lo: 0, hi: 3, rescale: RESCALE}
  overall_impression: {to: overall, lo: 0, hi: 4}
ignore: [interestingness]
"""


def conv(cid, relevance, overall=2):
    turns = [{"role": "USER", "utterance": "hi"}]
    for r in relevance:
        turns += [{"role": "ASST", "utterance": "...", "turn_scores": {"relevance": r, "interestingness": 1}},
                  {"role": "USER", "utterance": "ok"}]
    return {"conv_id": cid, "dialogue": turns, "dial": {"overall_impression": overall}}


def test_turn_labels_averaged_over_the_dialogue(tmp_path):
    labels = jsonl(tmp_path, "h.jsonl", [conv("c1", [0, 3, 2]), conv("c2", [1, None]), conv("c3", [])])
    m = load_map(write(tmp_path, "m.yaml", CRS_LAYOUT.replace("RESCALE", "true")))
    frame, report = read_mapped(labels, m)
    # rescaled 0-3 -> 0-4: 0, 4, 8/3 -> mean 20/9; a null turn is unrated; no labelled turn -> NaN
    assert frame.loc[0, "effectiveness"] == pytest.approx(20 / 9) and frame.loc[1, "effectiveness"] == pytest.approx(4 / 3)
    assert math.isnan(frame.loc[2, "effectiveness"]) and frame["overall"].tolist() == [2, 2, 2]
    assert report["turn_aggregation"] == "mean" and report["ignored"] == {"interestingness": 5}
    assert qwk_reasons(m) == {"effectiveness": "'relevance' is a mean of turn labels, not one of five categories"}
    m = load_map(write(tmp_path, "m.yaml", CRS_LAYOUT.replace("RESCALE", "false")))
    assert read_mapped(labels, m)[0].loc[0, "effectiveness"] == pytest.approx(5 / 3)


@pytest.mark.parametrize("record, field, message", [
    ({"conv_id": "c", "dial": {"overall_impression": 2, "novelty": 1}}, "dial.novelty", "neither maps nor ignores"),
    ({"conv_id": "c", "dial": {"overall_impression": 5}}, "dial.overall_impression", "5 is not an integer on 0-4"),
    ({"conv_id": "c", "dial": {"overall_impression": 2.5}}, "dial.overall_impression", "not an integer"),
    ({"conv_id": "c", "dial": {"overall_impression": "good"}}, "dial.overall_impression", "expected a number"),
    ({"conv_id": "c", "dial": {"relevance": 1}}, "dial.relevance", "declared turn-level"),
    ({"conv_id": "c", "dialogue": [{"turn_scores": {"overall_impression": 1}}]}, "dialogue[0].turn_scores.overall_impression",
     "declared dialogue-level"),
    ({"conv_id": "c", "dialogue": [{"turn_scores": {"relevance": 4}}]}, "dialogue[0].turn_scores.relevance", "not an integer on 0-3"),
    ({"conv_id": "c", "dialogue": "x"}, "dialogue", "list of turns"),
    ({"dialogue_id": "c"}, "conv_id", "non-empty string"),
])
def test_each_error_names_file_line_and_field(tmp_path, record, field, message):
    m = load_map(write(tmp_path, "m.yaml", CRS_LAYOUT.replace("RESCALE", "true")))
    labels = jsonl(tmp_path, "h.jsonl", [conv("ok", [1]), record])
    with pytest.raises(DataError, match=message) as err:
        read_mapped(labels, m)
    assert (err.value.file, err.value.line, err.value.field) == (str(labels), 2, field)


def test_duplicates_and_annotators(tmp_path):
    m = load_map(write(tmp_path, "m.yaml", LIKERT.replace("RESCALE", "true")))
    with pytest.raises(DataError, match="duplicate 'd1' by annotator 'A'") as err:
        read_mapped(jsonl(tmp_path, "h.jsonl", [{"conv": "d1", "rater": "A", "coherent": 1}] * 2), m)
    assert (err.value.line, err.value.field) == (2, "conv")
    rows = [{"conv": "d1", "rater": a, "coherent": v} for a, v in (("A", 2), ("B", 4))]
    frame, _ = read_mapped(jsonl(tmp_path, "h.jsonl", rows), m)
    assert agree.several_annotators(frame) and agree.mean_over_annotators(frame)["coherence"].tolist() == [2.0]


def test_binary_like_dislike_words(tmp_path):
    m = load_map(write(tmp_path, "m.yaml", "name: b\nlabels:\n  verdict: {to: overall, lo: 0, hi: 1, "
                                           "values: {like: 1, dislike: 0}}\n"))
    frame, _ = read_mapped(jsonl(tmp_path, "h.jsonl", [{"dialogue_id": "a", "verdict": "like"},
                                                       {"dialogue_id": "b", "verdict": "dislike"}]), m)
    assert frame["overall"].tolist() == [1.0, 0.0]
    with pytest.raises(DataError, match="'meh' is not one of") as err:
        read_mapped(jsonl(tmp_path, "h.jsonl", [{"dialogue_id": "a", "verdict": "meh"}]), m)
    assert err.value.field == "verdict"


@pytest.mark.parametrize("text, message", [
    ("name: x\nlabels:\n  a: {to: coherence, lo: 0, hi: 4}\n  b: {to: coherence, lo: 0, hi: 4}\n", "several labels map to"),
    ("name: x\nlabels:\n  a: {to: cohesion, lo: 0, hi: 4}\n", "neither 'overall' nor a CoRE factor"),
    ("name: x\nlabels:\n  a: {to: coherence, lo: 4, hi: 0}\n", "lo < hi"),
    ("name: x\nlabels:\n  a: {to: coherence, lo: 0, hi: 4, level: turn}\n", "turn_labels"),
    ("name: x\nlabels:\n  a: {to: coherence, lo: 0, hi: 4}\nignore: [a]\n", "both mapped and ignored"),
    ("name: x\nlabels:\n  a: {to: coherence, lo: 0, hi: 4, scale: 5}\n", "labels.a.scale"),
    ("name: x\nsystem_pattern: '^[a-z]+'\nlabels: {}\n", "exactly one group"),
    ("name: x\nsystem_pattern: '^(['\nlabels: {}\n", "not a regular expression"),
    ("name: x\nsystem: s\nsystem_pattern: '(a)'\nlabels: {}\n", "once"),
])
def test_bad_mapping_is_a_usage_error(tmp_path, text, message):
    with pytest.raises(UsageError, match=message):
        load_map(write(tmp_path, "m.yaml", text))


def test_shipped_crsarena_map_reads_its_layout(tmp_path):
    path = resources.files("trace_crs.judge").joinpath("data/label_maps/crsarena_eval.yaml")
    m = load_map(path)
    # a made-up conversation in the layout of the data set's README (no data copied)
    rec = {"conv_id": "x_redial_1", "dialogue": [
        {"turn_ind": 0, "role": "USER", "utterance": "a film?"},
        {"turn_ind": 1, "role": "ASST", "utterance": "...", "turn_level_aggregated": {"relevance": 3, "interestingness": 1}},
        {"turn_ind": 2, "role": "USER", "utterance": "and?"},
        {"turn_ind": 3, "role": "ASST", "utterance": "...", "turn_level_aggregated": {"relevance": 0, "interestingness": 0}}],
        "dial_level_aggregated": {"understanding": 1, "task_completion": 0, "interest_arousal": 2, "efficiency": 1,
                                  "dialogue_overall": 3, "preference_elicitation": 0, "explanation": 1}}
    frame, report = read_mapped(jsonl(tmp_path, "h.jsonl", [rec]), m)
    row = frame.iloc[0]
    assert (row["effectiveness"], row["novelty"], row["overall"]) == (pytest.approx(2.0), 4.0, 75.0)
    assert row["system"] == "x_redial"                                          # system_pattern on conv_id
    with pytest.raises(DataError, match="does not match system_pattern") as err:
        read_mapped(jsonl(tmp_path, "h.jsonl", [rec, {**rec, "conv_id": "nounderscore"}]), m)
    assert (err.value.line, err.value.field) == (2, "conv_id")
    assert report["ignored"]["interestingness"] == 2 and report["ignored"]["explanation"] == 1
    assert set(qwk_reasons(m)) == {"effectiveness", "novelty"}


def test_cli_with_and_without_map(tmp_path, capsys):
    pred = judged(tmp_path, [0, 1, 2, 3, 4])
    m = write(tmp_path, "m.yaml", LIKERT.replace("RESCALE", "true"))
    h = jsonl(tmp_path, "h.jsonl", [{"conv": f"d{i}", "coherent": v, "satisfaction": v}
                                    for i, v in enumerate([1, 2, 3, 5, 5])])
    out = tmp_path / "a.json"
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human", str(h), "--human-map", str(m),
                 "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    coh = next(r for r in got["factors"] if r["factor"] == "coherence")
    assert coh["qwk"] == pytest.approx(22 / 23) and coh["qwk_note"] is None
    assert got["human_map"]["map"] == "likert-1-5" and got["human_map"]["file"] == str(m)
    assert next(r for r in got["overall"] if r["score"] == "core_avg")["spearman"] == pytest.approx(
        stats.spearmanr([0, 1, 2, 3, 4], [1, 2, 3, 5, 5]).statistic)
    # without the map the same labels are not CoRE's layout: refused as before (exit 3, naming the line)
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human", str(h)]) == 3
    assert f"{h}:1" in capsys.readouterr().err
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human-map", str(m)]) == 2
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human", str(h), "--human-map", str(m),
                 "--out", str(m)]) == 2                                           # never overwrites an input
    bad = write(tmp_path, "bad.yaml", "name: x\nlabels: {a: {to: nope, lo: 0, hi: 1}}\n")
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human", str(h), "--human-map", str(bad)]) == 2
    assert "field 'labels.a'" in capsys.readouterr().err


def test_a_json_array_file_is_read_with_each_record_line(tmp_path):
    m = load_map(write(tmp_path, "m.yaml", CRS_LAYOUT.replace("RESCALE", "true")))
    records = [conv("c1", [3]), conv("c2", [0]), {"conv_id": "c3", "dial": {"overall_impression": 9}}]
    arr = write(tmp_path, "h.json", json.dumps(records, indent=1))
    with pytest.raises(DataError, match="9 is not an integer on 0-4") as err:
        read_mapped(arr, m)
    text = arr.read_text()
    assert err.value.line == text[: text.index('"c3"')].count("\n")           # the line its '{' opens on
    frame, _ = read_mapped(write(tmp_path, "h.json", json.dumps(records[:2])), m)
    assert frame["effectiveness"].tolist() == [4.0, 0.0]
    with pytest.raises(DataError, match="expected ',' or ']'") as err:
        read_mapped(write(tmp_path, "h.json", '[\n{"conv_id": "a"}\n{"conv_id": "b"}]'), m)
    assert err.value.line == 3


def test_unnamed_annotators_one_row_each(tmp_path, capsys):
    # AB-ReDial's layout: the id repeats, one row per (unnamed) annotator; compared by its mean
    text = LIKERT.replace("RESCALE", "true").replace("annotator: rater\n", "repeated_ids: unnamed_annotators\n")
    m = write(tmp_path, "m.yaml", text)
    rows = [{"conv": f"d{i}", "coherent": v} for i, pair in enumerate([(1, 1), (2, 2), (3, 3), (4, 5), (5, 5)])
            for v in pair]
    h = jsonl(tmp_path, "h.jsonl", rows)
    frame, report = read_mapped(h, load_map(m))
    assert frame["annotator"].tolist()[:4] == ["#1", "#2", "#1", "#2"] and report["unnamed_annotators"]
    out = tmp_path / "a.json"
    assert main(["--quiet", "judge", "agree", "--pred", str(judged(tmp_path, [0, 1, 2, 3, 4])), "--human", str(h),
                 "--human-map", str(m), "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert "factors_per_annotator" not in got                                   # "#1" is no one person
    coh = next(r for r in got["factors"] if r["factor"] == "coherence")
    # means 0, 1, 2, 3.5, 4 -> QWK on rint (0, 1, 2, 4, 4: numpy rounds 3.5 to even) and Spearman on the means
    assert coh["qwk"] == pytest.approx(weighted_kappa([0, 1, 2, 3, 4], [0, 1, 2, 4, 4]))
    assert coh["spearman"] == pytest.approx(stats.spearmanr([0, 1, 2, 3, 4], [0, 1, 2, 3.5, 4]).statistic)
    with pytest.raises(UsageError, match="names its annotators"):
        load_map(write(tmp_path, "bad.yaml", text + "annotator: rater\n"))


SHARED = [Path(__file__).resolve().parents[n] / "shared/data/foreign-transcripts/crsarena-5.jsonl" for n in (2, 3, 4)]


def test_shipped_map_joins_the_real_crsarena_transcripts(tmp_path):
    # the five CRSArena conversations (no labels) keep their conv_id as dialogue_id in
    # `judge transcripts --generic`; labels keyed by the same conv_id join, and the map's
    # system_pattern reads a "<crs>_<dataset>" system off every one
    shared = next((p for p in SHARED if p.exists()), None)
    if shared is None:
        pytest.skip("../shared/data/foreign-transcripts not present")
    ids = [json.loads(line)["dialogue_id"] for line in shared.read_text().splitlines() if line.strip()]
    m = load_map(resources.files("trace_crs.judge").joinpath("data/label_maps/crsarena_eval.yaml"))
    labels = [{"conv_id": i, "dial_level_aggregated": {"dialogue_overall": k % 5}} for k, i in enumerate(ids)]
    frame, _ = read_mapped(jsonl(tmp_path, "h.jsonl", labels), m)
    assert frame["dialogue_id"].tolist() == ids and len(ids) == 5
    assert all(s.split("_")[1] in ("redial", "opendialkg") for s in frame["system"])
