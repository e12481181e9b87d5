"""Other CRS logs and other people's label files, the way real data sets deliver them: the generic
transcript adapter, ``judge transcripts --generic``, the domain check of ``judge core`` and the
label coverage of ``judge agree`` (each failure an exit code with file, line and field)."""
import json
from pathlib import Path

import pytest

from trace_crs.cli import main
from trace_crs.errors import DataError
from trace_crs.judge.adapters import from_generic
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import read_ratings

SHARED = [Path(__file__).resolve().parents[n] / "shared/data/foreign-transcripts/crsarena-5.jsonl" for n in (2, 3, 4)]
TWO = [{"role": "user", "text": "a film?"}, {"role": "assistant", "text": "Alien"}]


def write(path, recs):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    return path


def err_line(capsys):
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("user, crs", [("User", "Assistant"), ("SEEKER", "RECOMMENDER"), (" user ", "assistant\n"),
                                       ("Human", "Bot")])
def test_roles_read_whatever_their_case_and_spacing(user, crs):
    t = from_generic({"dialogue_id": "d", "turns": [{"role": user, "text": "a film?"}, {"speaker": crs, "text": "Alien"}]})
    assert [x.role for x in t.turns] == ["user", "assistant"]


def test_system_is_the_crs_unless_a_chat_log_also_has_assistant_turns():
    crs = from_generic({"dialogue_id": "d", "turns": [{"role": "user", "text": "a film?"}, {"role": "system", "text": "Alien"}]})
    assert [x.role for x in crs.turns] == ["user", "assistant"]
    chat = {"dialogue_id": "d", "turns": [{"role": "system", "text": "You are a movie recommender."}, *TWO]}
    with pytest.raises(DataError, match=r"f:3: field 'turns.0.role': role 'system' beside 'assistant'"):
        from_generic(chat, "f", 3)


def test_items_must_be_a_list_not_a_string_read_letter_by_letter():
    ok = from_generic({"dialogue_id": "d", "turns": [TWO[0], {**TWO[1], "rec_items": ["Alien", 1979]}]})
    assert ok.recommended == ["Alien", "1979"]
    with pytest.raises(DataError, match=r"field 'turns.1.items': expected a list of item names, got 'Alien'"):
        from_generic({"dialogue_id": "d", "turns": [TWO[0], {**TWO[1], "items": "Alien"}]})
    user_items = from_generic({"dialogue_id": "d", "turns": [{**TWO[0], "movies": ["Jaws"]}, TWO[1]]})
    assert user_items.recommended == []                      # a user's mentioned items are not recommendations


def test_consecutive_turns_unicode_extra_fields_and_empty_system_turns_are_kept():
    rec = {"dialogue_id": "ü🎬", "rating": 4, "meta": {"x": 1},
           "turns": [{"role": "user", "text": "hi", "ts": 1}, {"role": "user", "text": "Un film 🎬 « drôle » & co"},
                     {"role": "assistant", "text": ""}, {"role": "assistant", "text": "Try <Amélie>"}]}
    t = from_generic(rec)
    assert [x.role for x in t.turns] == ["user", "user", "assistant", "assistant"] and t.dialogue_id == "ü🎬"
    assert "<user>Un film 🎬 « drôle » &amp; co</user>" in t.log() and "<system>Try &lt;Amélie&gt;</system>" in t.log()


@pytest.mark.parametrize("rec, where", [
    ([{"dialogue_id": "d", "turns": TWO}], "field 'turns': expected an object with a 'turns' list, got list"),
    ({"dialogue_id": "d", "messages": TWO}, "got keys ['dialogue_id', 'messages']"),
    ({"dialogue_id": "d", "turns": [{"role": "user", "text": "hi"}, {"role": "user", "text": "anyone?"}]},
     "field 'turns': only one speaker (user)"),
    ({"dialogue_id": "d", "turns": [{"role": "user", "text": " \u200b "}, TWO[1]]}, "field 'turns.0': empty user text"),
    ({"dialogue_id": "d", "turns": [{"role": "user", "text": None}, TWO[1]]}, "field 'turns.0.text': no text"),
    ({"turns": TWO}, "field 'dialogue_id': Field required"),
])
def test_malformed_records_name_the_field(rec, where):
    with pytest.raises(DataError) as exc:
        from_generic(rec, "log.jsonl", 7)
    assert str(exc.value).startswith("log.jsonl:7: field ") and where in str(exc.value)


def test_export_refuses_a_repeated_dialogue_id_at_its_line(tmp_path, capsys):
    src = write(tmp_path / "log.jsonl", [{"dialogue_id": "d", "turns": TWO}, {"dialogue_id": "e", "turns": TWO},
                                         {"dialogue_id": "d", "turns": TWO}])
    assert main(["judge", "transcripts", "--generic", str(src), "--out", str(tmp_path / "t.jsonl")]) == 3
    assert err_line(capsys).endswith("log.jsonl:3: field 'dialogue_id': duplicate 'd' (first on line 1)")
    assert not (tmp_path / "t.jsonl").exists()


def test_unknown_domain_in_a_transcript_is_a_data_error_at_its_line(tmp_path, capsys, monkeypatch):
    from trace_crs.cli import judge as judge_cli

    monkeypatch.setattr(judge_cli, "open_judge_lm", lambda cfg, stack: pytest.fail("no judge before the check"))
    t = write(tmp_path / "t.jsonl", [{"dialogue_id": "a", "turns": TWO, "domain": "movies"},
                                     {"dialogue_id": "b", "turns": TWO, "domain": "books"}])
    assert main(["judge", "core", "--transcripts", str(t), "--out", str(tmp_path / "o.jsonl")]) == 3
    assert "t.jsonl:2: field 'domain': unknown judge domain 'books'" in err_line(capsys)
    assert main(["judge", "core", "--transcripts", str(t), "--out", str(tmp_path / "o.jsonl"), "--domain", "books"]) == 2
    assert "--domain: unknown judge domain 'books'" in err_line(capsys)


@pytest.mark.skipif(not any(p.exists() for p in SHARED), reason="shared foreign transcripts not present")
def test_crsarena_logs_without_a_domain_are_said_to_be_judged_as_travel(tmp_path, capsys, monkeypatch):
    from dspy.utils import DummyLM

    from trace_crs.cli import judge as judge_cli

    lm = DummyLM({"<evaluation_guideline factor=": {"rationale": "fine", "rating": "2"}})
    monkeypatch.setattr(judge_cli, "open_judge_lm", lambda cfg, stack: (lm, "dummy"))
    t, o = tmp_path / "t.jsonl", tmp_path / "o.jsonl"
    assert main(["judge", "transcripts", "--generic", str(next(p for p in SHARED if p.exists())), "--out", str(t)]) == 0
    assert main(["judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "1"]) == 0
    assert "note: 1 transcript(s) name no domain and are judged as travel (give --domain" in capsys.readouterr().err
    o.unlink()
    assert main(["judge", "core", "--transcripts", str(t), "--out", str(o), "--n", "1", "--domain", "movies"]) == 0
    assert "name no domain" not in capsys.readouterr().err


def judged(path, ids):
    recs = [{"dialogue_id": d, "factors": {f: (i + j) % 5 for j, f in enumerate(FACTORS)}, "core_avg": 2.0}
            for i, d in enumerate(ids)]
    return write(path, recs)


def test_flat_human_labels_read_as_factors(tmp_path):
    nested = write(tmp_path / "n.jsonl", [{"dialogue_id": "a", "factors": {"novelty": 3, "coherence": None}, "overall": 40}])
    flat = write(tmp_path / "f.jsonl", [{"dialogue_id": "a", "novelty": 3, "coherence": None, "overall": 40}])
    assert read_ratings(flat, human=True).equals(read_ratings(nested, human=True))
    both = write(tmp_path / "b.jsonl", [{"dialogue_id": "a", "novelty": 3, "factors": {"coherence": 1}}])
    with pytest.raises(DataError, match="b.jsonl:1: .*both at the top level \\(novelty\\) and under 'factors'"):
        read_ratings(both, human=True)
    with pytest.raises(DataError, match="f5.jsonl:1: field 'factors.novelty': rating 5 is not an integer 0-4"):
        read_ratings(write(tmp_path / "f5.jsonl", [{"dialogue_id": "a", "novelty": 5}]), human=True)


def test_agree_reports_coverage_and_refuses_labels_of_other_dialogues(tmp_path, capsys):
    pred = judged(tmp_path / "pred.jsonl", ["tfidf/d1", "tfidf/d2", "tfidf/d3", "tfidf/d4", "tfidf/d5"])
    other = write(tmp_path / "h0.jsonl", [{"dialogue_id": f"d{i}", "novelty": 2, "overall": 50} for i in range(1, 6)])
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(other), "--quiet"]) == 3
    msg = err_line(capsys)
    assert "h0.jsonl: field 'dialogue_id': no labelled dialogue is among the 5 judged ones" in msg
    assert "'<system>/<dialogue_id>'" in msg
    part = write(tmp_path / "h1.jsonl", [{"dialogue_id": d, "novelty": v, "overall": 10 * v}
                                         for d, v in [("tfidf/d1", 0), ("tfidf/d2", 3), ("tfidf/d3", 1), ("x", 4)]])
    out = tmp_path / "agree.json"
    assert main(["judge", "agree", "--pred", str(pred), "--human", str(part), "--quiet", "--out", str(out)]) == 0
    assert "warning: agreement on the 3 dialogues both judged and labelled; 1 labelled only, 2 judged only" in (
        capsys.readouterr().err)
    got = json.loads(out.read_text())
    assert got["coverage"] == {"n_judged": 5, "n_labelled": 4, "n_both": 3, "labelled_not_judged": ["x"],
                               "judged_not_labelled": ["tfidf/d4", "tfidf/d5"]}
    assert next(r for r in got["factors"] if r["factor"] == "novelty")["n"] == 3


def test_a_csv_label_file_is_refused_saying_what_is_read(tmp_path):
    p = tmp_path / "labels.csv"
    p.write_text("dialogue_id,novelty\nd1,3\n")
    with pytest.raises(DataError, match=r"labels.csv: a CSV file: ratings are read as JSON lines"):
        read_ratings(p, human=True)


def test_a_transcript_too_long_for_the_context_is_named_not_a_traceback(tmp_path, capsys, monkeypatch):
    from dspy.utils import DummyLM

    from trace_crs.cli import judge as judge_cli
    from trace_crs.judge import run

    monkeypatch.setattr(judge_cli, "open_judge_lm", lambda cfg, stack: (DummyLM([]), "dummy"))
    real = run.judge_one

    def judge_one(t, *a, **kw):  # what a llama.cpp server answers a prompt longer than n_ctx, as DSPy re-raises it
        if t.dialogue_id != "long":
            return real(t, *a, **kw)
        try:
            raise RuntimeError("Error code: 400 - Requested tokens (40755) exceed context window of 8192")
        except RuntimeError as exc:
            raise ValueError("[model] litellm.BadRequestError: OpenAIException - bad request") from exc

    monkeypatch.setattr(run, "judge_one", judge_one)
    t = write(tmp_path / "t.jsonl", [{"dialogue_id": "long", "turns": TWO, "domain": "movies"}])
    assert main(["judge", "core", "--transcripts", str(t), "--out", str(tmp_path / "o.jsonl")]) == 2
    msg = err_line(capsys)
    assert "transcript 'long' does not fit the model's context window" in msg and "lm.n_ctx" in msg
    assert judge_cli.context_overflow(ValueError("maximum context length is 8192 tokens"))
    assert not judge_cli.context_overflow(ValueError("rate limited"))


def test_labels_naming_annotators_on_some_lines_only_are_refused(tmp_path):
    p = write(tmp_path / "h.jsonl", [{"dialogue_id": "a", "annotator": "A", "novelty": 1},
                                     {"dialogue_id": "a", "annotator": "B", "novelty": 2},
                                     {"dialogue_id": "b", "novelty": 3}])
    with pytest.raises(DataError, match=r"h.jsonl:3: field 'annotator': named on line 1, unnamed on line 3"):
        read_ratings(p, human=True)
    ok = write(tmp_path / "ok.jsonl", [{"dialogue_id": "a", "novelty": 1}, {"dialogue_id": "b", "novelty": 3}])
    assert read_ratings(ok, human=True)["annotator"].isna().all()


def test_two_judges_over_different_transcripts_are_warned_about(tmp_path, capsys):
    a = judged(tmp_path / "a.jsonl", ["d1", "d2", "d3", "d4", "d5"])
    b = judged(tmp_path / "b.jsonl", ["d1", "d2", "d3", "d4", "d6"])
    assert main(["judge", "agree", "--pred", str(a), "--judge-b", str(b), "--quiet", "--out", str(tmp_path / "o.json")]) == 0
    assert "warning: --pred and --judge-b differ in 2 transcript(s) (e.g. ['d5', 'd6'])" in capsys.readouterr().err
    assert main(["judge", "agree", "--pred", str(a), "--judge-b", str(a), "--quiet", "--out", str(tmp_path / "p.json")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_select_scores_every_candidate_on_the_same_dialogues():
    import numpy as np
    import pandas as pd

    from trace_crs.judge.select import select_judges

    def frame(ratings):
        return pd.DataFrame([{"dialogue_id": d, "system": None, **{f: np.nan for f in FACTORS}, "novelty": v}
                             for d, v in ratings.items()])
    human = frame({"d1": 0, "d2": 1, "d3": 2, "d4": 3})
    full = frame({"d1": 0, "d2": 1, "d3": 2, "d4": 0})          # wrong on the hard d4
    skipper = frame({"d1": 0, "d2": 1, "d3": 2})                # never rated d4
    row = select_judges({"full": full, "skipper": skipper}, human).set_index("factor").loc["novelty"]
    # on d1-d3 both agree perfectly with the labels: a tie, kept by the first candidate; n = 3
    assert (row["judge"], row["qwk_full"], row["qwk_skipper"], row["n"]) == ("full", 1.0, 1.0, 3)
