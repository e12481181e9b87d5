"""`judge agree --human` with several annotators per dialogue: per annotator and against the mean."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from trace_crs.cli import main
from trace_crs.errors import DataError
from trace_crs.judge import agree
from trace_crs.judge.factors import FACTORS
from trace_crs.judge.records import read_ratings

F = FACTORS[0]


def _human(tmp_path, rows):
    p = tmp_path / "h.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def test_several_annotators_read_and_averaged(tmp_path):
    rows = [{"dialogue_id": d, "annotator": a, "factors": {F: v}, "overall": 10 * v}
            for d, vals in (("d1", (1, 2)), ("d2", (3, 3)), ("d3", (0, 4))) for a, v in zip(("A", "B"), vals)]
    human = read_ratings(_human(tmp_path, rows), human=True)
    assert agree.several_annotators(human) and len(human) == 6
    mean = agree.mean_over_annotators(human).set_index("dialogue_id")
    assert mean[F].tolist() == [1.5, 3.0, 2.0] and mean["overall"].tolist() == [15.0, 30.0, 20.0]
    assert mean["n_annotators"].tolist() == [2, 2, 2]


def test_duplicates_still_refused(tmp_path):
    same = {"dialogue_id": "d1", "factors": {F: 1}}
    with pytest.raises(DataError, match="name each line"):
        read_ratings(_human(tmp_path, [same, same]), human=True)
    with pytest.raises(DataError, match="by annotator 'A'"):
        read_ratings(_human(tmp_path, [same | {"annotator": "A"}] * 2), human=True)


def test_factor_agreement_against_a_mean_rounds_only_for_qwk():
    judge = pd.DataFrame({"dialogue_id": ["d1", "d2", "d3", "d4", "d5"], **{f: np.nan for f in FACTORS}})
    judge[F] = [0.0, 1.0, 2.0, 3.0, 4.0]
    human = judge.copy()
    human[F] = [0.5, 1.0, 2.5, 3.0, 3.5]   # rint: 0, 1, 2, 3, 4 → QWK 1; Spearman of the means 1
    row = agree.factor_agreement(judge, human).set_index("factor").loc[F]
    assert row["qwk"] == pytest.approx(1.0) and row["spearman"] == pytest.approx(1.0) and row["n"] == 5


def test_cli_per_annotator_tables(tmp_path):
    ids = [f"d{i}" for i in range(6)]
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps({"dialogue_id": d, "system": "s", "factors": {f: (i % 5) for f in FACTORS},
                                        "core_avg": float(i % 5)}) + "\n" for i, d in enumerate(ids)))
    rows = [{"dialogue_id": d, "annotator": a, "factors": {F: min(4, i % 5 + k)}, "overall": 10.0 * i + k}
            for i, d in enumerate(ids) for k, a in enumerate(("A", "B"))]
    out = tmp_path / "a.json"
    assert main(["--quiet", "judge", "agree", "--pred", str(pred), "--human", str(_human(tmp_path, rows)),
                 "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    per = pd.DataFrame(got["factors_per_annotator"])
    assert set(per["annotator"]) == {"A", "B"}
    a_row = per[(per["annotator"] == "A") & (per["factor"] == F)].iloc[0]
    assert a_row["qwk"] == pytest.approx(1.0)                                  # A equals the judge
    assert pd.DataFrame(got["overall_per_annotator"])["annotator"].nunique() == 2
    assert pd.DataFrame(got["factors"]).set_index("factor").loc[F, "n"] == 6   # against the mean
