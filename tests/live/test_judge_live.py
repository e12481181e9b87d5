"""Done-when of live judging: a system asks, the simulated user answers from its profile, the
system recommends, the user accepts; ``converse`` writes the conversation in the judge's format
and CoRE (``trace-crs judge core`` against the fake OpenAI-compatible server) rates exactly the
live turns — the shared opening is history, no reference turn appears anywhere."""
from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scripted import Scripted  # noqa: E402

from trace_crs.cli import main  # noqa: E402
from trace_crs.judge.adapters import from_live  # noqa: E402
from trace_crs.judge.transcript import transcript_record  # noqa: E402
from trace_crs.dialogues.constraints import meeting as satisfying  # noqa: E402
from trace_crs.live.ask import QUESTIONS, Asking, asked_facets  # noqa: E402
from trace_crs.live.loop import converse  # noqa: E402
from trace_crs.dialogues.constraints import constraints_of  # noqa: E402
from trace_crs.live.simulator import SimConfig, about, state, turn_rng  # noqa: E402


def _judge_reply(messages: list) -> str:
    if '"dimension_name"' in messages[-1]["content"]:
        return "[[ ## statement ## ]]\nFine.\n\n[[ ## score ## ]]\n70\n\n[[ ## completed ## ]]"
    return "[[ ## rationale ## ]]\nGood.\n\n[[ ## rating ## ]]\n3\n\n[[ ## completed ## ]]"


@pytest.fixture
def server(fake_openai):
    """The suite's fake OpenAI-compatible server (tests/conftest.py) answering with :func:`_judge_reply`."""
    return fake_openai(_judge_reply)


def asked_conversation(world):
    """A dialogue whose profile constrains the facet the policy asks about, and its live talk."""
    kb, dialogues, _ = world
    for d in dialogues:
        prof = constraints_of(d["scenario"]["hidden_preferences"])
        ok = satisfying([kb.pois[c] for c in d["candidate_poi_ids"]], prof)
        system = Asking(Scripted(lambda ctx, ok=ok: ok[0]), max_questions=1)
        transcript, row, preds = converse(system, "asker", d, kb, cfg=SimConfig(max_turns=4))
        facet = asked_facets(transcript["turns"][1]["text"])
        if ok and facet and sum(facet[0] in about(c) for c in prof) == 1:
            return d, prof, ok, transcript, row, preds
    raise AssertionError("no dialogue of the world has a profile on the asked facet")


def test_ask_answer_accept_then_core_rates_only_live_turns(world, server, tmp_path, monkeypatch):
    kb, _, _ = world
    d, prof, ok, transcript, row, preds = asked_conversation(world)
    turns = transcript["turns"]
    assert [t["action"] for t in turns] == ["greet_and_seek", "ask_preference", "provide_preference",
                                            "recommend", "accept"]
    assert turns[1]["text"] in QUESTIONS.values()
    facet = asked_facets(turns[1]["text"])[0]
    # the answer states the profile's one preference of the asked facet, drawn as the user draws turn 2
    [wish] = [c for c in prof if facet in about(c)]   # wanted, avoided or either-of (live.simulator.about)
    assert turns[2]["text"] == state(wish, turn_rng(42, d["dialogue_id"], 2))
    assert (row["tsr"], row["t2r"], row["n_questions"], row["n_abstentions"]) == (1.0, 2.0, 1, 0)
    assert [p["turn_id"] for p in preds] == [4] and turns[3]["referenced_poi_ids"] == [ok[0]]

    t = from_live(transcript, kb, "asker")
    assert t.history_turns == 1 and t.dialogue_id == f"asker/{d['dialogue_id']}"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(transcript_record(t)) + "\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-server")
    out = tmp_path / "core.jsonl"
    assert main(["--quiet", "judge", "core", "--transcripts", str(path), "--out", str(out),
                 "--set", "lm.model=openai/fake-judge", "--set", f"lm.api_base={server.url}",
                 "--set", f"lm.cache_dir={tmp_path / 'lm'}"]) == 0
    [rec] = [json.loads(x) for x in out.read_text().splitlines()]
    assert rec["core_avg"] == 3.0 and len(server.calls) == 12
    prompt = html.unescape(server.calls[0][-1]["content"])
    interaction = re.search(r"<interaction>\n(.*?)\n\s*</interaction>", prompt, re.S).group(1)
    history = re.search(r"<history>\n(.*?)\n\s*</history>", prompt, re.S).group(1)
    said = re.findall(r"<(user|system)>(.*?)</\1>", interaction)
    assert said == [("system" if x["role"] == "system" else "user", x["text"]) for x in turns[1:]]
    assert re.findall(r"<user>(.*?)</user>", history) == [turns[0]["text"]]
    reference = [x["text"] for x in d["turns"][1:]]
    assert not any(r in prompt for r in reference)   # no replayed reference turn reaches the judge


def test_converse_writes_judge_transcripts(world_files, tmp_path):
    kb_dir, dialogues = world_files
    out = tmp_path / "live"
    assert main(["--quiet", "converse", "--kb", kb_dir, "--dialogues", dialogues, "--baselines", "popularity",
                 "--subset", "3", "--ask", "1", "--out", str(out)]) == 0
    recs = [json.loads(x) for x in (out / "judge" / "popularity.jsonl").read_text().splitlines()]
    lives = [json.loads(x) for x in (out / "transcripts" / "popularity.jsonl").read_text().splitlines()]
    assert [r["dialogue_id"] for r in recs] == [f"popularity/{x['dialogue_id']}" for x in lives]
    for r, x in zip(recs, lives):
        assert r["history_turns"] == 1 and [t["text"] for t in r["turns"]] == [t["text"] for t in x["turns"]]
        assert x["turns"][1]["action"] == "ask_preference"
        shown = [t for t in r["turns"] if t.get("items")]     # the presented top 3, not only the top-1
        assert all(len(t["items"]) == 3 for t in shown) and len(shown) == sum(
            t["action"] == "recommend" for t in x["turns"])
    scores = json.loads((out / "live_scores.json").read_text())
    assert scores["config"]["ask"] == 1 and scores["baselines"]["popularity"]["metrics"]["questions_per_dialogue"] == 1.0


def test_judge_transcripts_live_collects_a_seeded_subset_per_run(world_files, tmp_path):
    kb_dir, dialogues = world_files
    out = tmp_path / "live"
    assert main(["--quiet", "converse", "--kb", kb_dir, "--dialogues", dialogues, "--baselines", "popularity,tfidf",
                 "--subset", "6", "--out", str(out)]) == 0
    t = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--live", str(out), "--n", "4", "--out", str(t)]) == 0
    ids = [json.loads(x)["dialogue_id"] for x in t.read_text().splitlines()]
    systems = {i.partition("/")[0] for i in ids}
    per = {s: [i.partition("/")[2] for i in ids if i.startswith(s + "/")] for s in systems}
    assert systems == {"popularity", "tfidf"} and per["popularity"] == per["tfidf"] and len(per["tfidf"]) == 4
    # --live with --run is refused (exit 2)
    assert main(["judge", "transcripts", "--live", str(out), "--run", str(out), "--out", str(tmp_path / "x.jsonl")]) == 2


def test_the_same_live_run_twice_is_refused_naming_the_id(world_files, tmp_path, capsys):
    kb_dir, dialogues = world_files
    out = tmp_path / "live"
    assert main(["--quiet", "converse", "--kb", kb_dir, "--dialogues", dialogues, "--baselines", "popularity",
                 "--subset", "2", "--out", str(out)]) == 0
    t = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--live", str(out), "--live", str(out), "--out", str(t)]) == 2
    assert "two transcripts would have the id 'popularity/" in capsys.readouterr().err and not t.exists()
