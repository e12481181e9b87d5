"""Domain-aware judging: the domain comes from the transcript or --domain (travel by default); a
movie transcript's every prompt (factor ratings and the debate) is free of travel wording, the
debate's Domain Expert is a movie expert, and travel prompts are unchanged."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.judge import domain
from trace_crs.judge.factors import FACTORS, guideline

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
FOREIGN = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "foreign-transcripts" / "crsarena-5.jsonl"
TRAVEL = re.compile(r"travel|touris", re.IGNORECASE)


def _reply(messages: list) -> str:
    if '"dimension_name"' in messages[-1]["content"]:
        return "[[ ## statement ## ]]\nFine.\n\n[[ ## score ## ]]\n60\n\n[[ ## completed ## ]]"
    return "[[ ## rationale ## ]]\nOk.\n\n[[ ## rating ## ]]\n2\n\n[[ ## completed ## ]]"


@pytest.fixture
def server(fake_openai):
    """The suite's fake OpenAI-compatible server (tests/conftest.py) answering with :func:`_reply`."""
    return fake_openai(_reply)


@pytest.mark.parametrize("value,expected", [(None, "travel"), ("", "travel"), ("restaurant", "travel"),
                                            ("Hotel", "travel"), ("movie", "movies"), ("ReDial", "movies")])
def test_resolve(value, expected):
    assert domain.resolve(value) == expected


def test_unknown_domain_is_an_error():
    with pytest.raises(ValueError, match="unknown judge domain 'books'"):
        domain.resolve("books")


def test_every_movie_guideline_is_localised_and_travel_is_unchanged():
    with domain.judging("movies"):
        texts = [guideline(n) for n in FACTORS]
    assert not any(TRAVEL.search(t) or re.search(r"\bplaces?\b", t) for t in texts)
    assert "traveller" in guideline("coherence")                      # outside judging: travel, as written
    with domain.judging("restaurant"):
        assert guideline("coherence") == domain.localise(guideline("coherence"), "travel")


def judge(tmp_path, server, transcripts, *extra):
    out = tmp_path / "o.jsonl"
    argv = ["--quiet", "judge", "core", "--transcripts", str(transcripts), "--out", str(out), "--n", "1",
            "--aggregator", "debate", "--set", "lm.model=openai/fake", "--set", f"lm.api_base={server.url}",
            "--set", f"lm.cache_dir={tmp_path / 'lm'}", *extra]
    return main(argv), out


@pytest.mark.skipif(not FOREIGN.exists(), reason="the shared foreign-transcripts fixture is not present")
def test_movie_transcript_prompts_never_say_traveller(tmp_path, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    t = tmp_path / "t.jsonl"
    assert main(["judge", "transcripts", "--generic", str(FOREIGN), "--out", str(t)]) == 0
    code, out = judge(tmp_path, server, t, "--domain", "movies")
    assert code == 0 and len(server.calls) == 16            # 12 factors + 4 debaters (unanimous in round 1)
    prompts = ["\n".join(str(m.get("content") or "") for m in msgs) for msgs in server.calls]
    assert not [p for p in prompts if TRAVEL.search(p)]
    assert any("YOUR ROLE: Domain Expert, a movie expert" in p for p in prompts)
    assert json.loads(out.read_text().splitlines()[0])["core_avg"] == 2.0


def test_domain_field_of_the_transcript_selects_movies_and_travel_is_default(tmp_path, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    rec = {"dialogue_id": "m1", "turns": [{"role": "user", "text": "A funny movie?"},
                                          {"role": "assistant", "text": "Try The Hangover.", "items": ["The Hangover"]}]}
    t = tmp_path / "t.jsonl"
    t.write_text(json.dumps({**rec, "domain": "movie"}) + "\n")
    assert judge(tmp_path, server, t)[0] == 0
    assert not [m for msgs in server.calls for m in msgs if TRAVEL.search(str(m.get("content")))]
    server.calls.clear()
    t.write_text(json.dumps({**rec, "dialogue_id": "m2"}) + "\n")        # no domain: travel, as written
    assert judge(tmp_path, server, t)[0] == 0
    assert any("traveller" in str(m.get("content")) for msgs in server.calls for m in msgs)
    assert judge(tmp_path, server, t, "--domain", "books")[0] == 2     # unknown domain: usage error
