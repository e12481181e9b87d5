"""CoRE Fig. 5 (trace_crs.report.core_fig5_debate_agreement) on hand-built debates: per-round All Agree / Major
Agree, carried forward after a unanimous stop, failed debates left out and counted."""
import json
import math

import matplotlib
import pytest

from trace_crs.judge.core import FactorResult
from trace_crs.judge.debate import DebateResult
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import judged_record
from trace_crs.report import core_fig5_debate_agreement

matplotlib.use("Agg")
Z = 1.959963984540054


def chat(*rounds):
    return [{"evaluator": f"e{i}", "statement": "s", "score": s, "round": r}
            for r, scores in enumerate(rounds, 1) for i, s in enumerate(scores)]


# system -> debates: the four scores of each round held (None: the debate failed)
DEBATES = {
    "tfidf": [
        [[70, 70, 70, 70]],                                          # unanimous at round 1
        [[60, 70, 70, 80], [70, 70, 70, 80], [70, 70, 70, 70]],      # none, major, all
        [[50, 60, 70, 80], [60, 60, 70, 80], [60, 60, 70, 70]],      # never: ended at max_rounds
    ],
    "dense": [
        None,                                                        # failed
        [[80, 80, 80, 75], [80, 80, 80, 80]],                        # major, then all
    ],
}


def write(path):
    results = {n: FactorResult(factor=n, rating=3, rationale="r", attempts=1) for n in FACTORS}
    lines = []
    for system, debates in DEBATES.items():
        for k, rounds in enumerate(debates):
            if rounds is None:
                deb = DebateResult(None, 1, chat([70, 70]), error="Linguist, round 1: unusable")
            else:
                deb = DebateResult(sum(rounds[-1]) / 4, len(rounds), chat(*rounds), len(set(rounds[-1])) == 1)
            lines.append(judged_record(f"{system}/d{k}", system, results, deb, {"mode": "per-factor"}, {}))
    lines.append(judged_record("spatial/d9", "spatial", results, None, {"mode": "per-factor"}, {}))  # no debate
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.mark.parametrize("scores, expected", [
    ([1, 1, 1, 1], (True, True)), ([1, 1, 1, 2], (False, True)), ([2, 1, 1, 1], (False, True)),
    ([1, 1, 2, 2], (False, False)), ([1, 2, 3, 4], (False, False)),
])
def test_agreement(scores, expected):
    assert core_fig5_debate_agreement.agreement(scores) == expected


def test_a_round_needs_every_evaluator():
    with pytest.raises(ValueError, match="4 scores"):
        core_fig5_debate_agreement.agreement([1, 1, 1])


def test_not_run_is_empty(tmp_path):
    df = core_fig5_debate_agreement.load(tmp_path)
    assert df.empty and core_fig5_debate_agreement.plot(df, tmp_path / "fig") == []
    assert core_fig5_debate_agreement.facts(df)["n_debates"] == 0 and math.isnan(core_fig5_debate_agreement.facts(df)["all_last"])


def wilson(k, n):
    p, z2 = k / n, Z * Z
    centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def test_rounds_carried_forward_and_failed_left_out(tmp_path):
    write(tmp_path / "judge" / "live" / "core_a.jsonl")
    df = core_fig5_debate_agreement.load(tmp_path)
    assert set(df["source"]) == {"live"} and "spatial" not in set(df["baseline"])
    got = {(r.baseline, r.round): (r.n, r.all_agree, r.major_agree, r.n_carried, r.n_failed) for r in df.itertuples()}
    # pooled: tfidf d0-d2 and dense d1 (dense d0 failed)
    assert got[("All systems", 1)] == (4, 1 / 4, 2 / 4, 0, 1)
    assert got[("All systems", 2)] == (4, 2 / 4, 3 / 4, 1, 1)
    assert got[("All systems", 3)] == (4, 3 / 4, 3 / 4, 2, 1)
    assert got[("tfidf", 1)] == (3, 1 / 3, 1 / 3, 0, 0)
    assert got[("tfidf", 2)] == (3, 1 / 3, 2 / 3, 1, 0)
    assert got[("tfidf", 3)] == (3, 2 / 3, 2 / 3, 1, 0)
    assert got[("dense", 1)] == (1, 0.0, 1.0, 0, 1) and got[("dense", 2)] == (1, 1.0, 1.0, 0, 1)
    assert ("dense", 3) not in got   # its one debate ended unanimous at round 2: nothing held later
    row = df[(df["baseline"] == "All systems") & (df["round"] == 1)].iloc[0]
    assert (row["all_ci_low"], row["all_ci_high"]) == pytest.approx(wilson(1, 4))
    f = core_fig5_debate_agreement.facts(df)
    assert f == {"source": "live", "n_debates": 5, "rounds": 3, "all_first": 0.25, "all_last": 0.75,
                 "major_first": 0.5, "major_last": 0.75}


def test_plot_one_figure_per_source(tmp_path):
    write(tmp_path / "judge" / "live" / "core_a.jsonl")
    write(tmp_path / "judge" / "closed" / "core_a.jsonl")
    df = core_fig5_debate_agreement.load(tmp_path)
    assert list(dict.fromkeys(df["source"])) == ["replayed", "live"]
    figs = core_fig5_debate_agreement.plot(df, tmp_path / "fig")
    assert len(figs) == 2 and (tmp_path / "fig" / "core_fig5_debate_agreement_live.svg").exists()
    assert [ax.get_title() for ax in figs[0].axes if ax.get_visible()] == [
        "All systems (n = 4)", "Dense (n = 1)", "TF-IDF (n = 3)"]


def _debate_reply(messages):
    """Factor prompts: rating 3. Debate: in round 1 the Common User says 60 and the others 70
    (Major Agree only); from round 2, when the discussion holds statements, everyone says 70."""
    content = messages[-1]["content"]
    if "dimension_name" not in content:
        return "[[ ## rationale ## ]]\nGood.\n\n[[ ## rating ## ]]\n3\n\n[[ ## completed ## ]]"
    first = "round" not in content.split("<discussion>")[-1].split("</discussion>")[0]
    score = 60 if first and "YOUR ROLE: Common User" in content else 70
    return f"[[ ## statement ## ]]\nI say {score}.\n\n[[ ## score ## ]]\n{score}\n\n[[ ## completed ## ]]"


def test_judge_core_debate_records_feed_fig5(fake_openai, tmp_path):
    """End to end: `judge core --aggregator debate` against the fake server writes the per-round
    scores Fig. 5 reads (no hand-built record)."""
    from trace_crs.cli import main

    server = fake_openai(_debate_reply)
    transcripts = tmp_path / "t.jsonl"
    transcripts.write_text("".join(json.dumps({"dialogue_id": f"tfidf/d{k}", "system": "tfidf", "turns": [
        {"role": "user", "text": "A quiet Italian place in Tampa, please."},
        {"role": "assistant", "text": f"Try Luigi's {k}: \"quiet and cosy\" [R1]."}]}) + "\n" for k in range(2)))
    out = tmp_path / "judge" / "closed" / "core_a.jsonl"
    out.parent.mkdir(parents=True)
    assert main(["--quiet", "judge", "core", "--transcripts", str(transcripts), "--out", str(out),
                 "--aggregator", "debate", "--set", "lm.model=openai/fake-judge",
                 "--set", f"lm.api_base={server.url}", "--set", f"lm.cache_dir={tmp_path / 'lm'}"]) == 0
    df = core_fig5_debate_agreement.load(tmp_path)
    got = {r.round: (r.n, r.all_agree, r.major_agree) for r in df[df["baseline"] == "All systems"].itertuples()}
    assert got == {1: (2, 0.0, 1.0), 2: (2, 1.0, 1.0)}
    assert len(server.calls) == 2 * (12 + 8)   # 12 factor ratings and two debate rounds of four
