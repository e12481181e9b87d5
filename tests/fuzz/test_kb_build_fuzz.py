"""Hostile inputs to `trace-crs kb build --source yelp` and to KB loading, and kill -9 during a
build over an existing KB.  Every case: the exit code (2 usage, 3 bad data), a message naming
file, line and field, no input changed, and no KB written (or the previous one intact)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from trace_crs.cli import main
from trace_crs.kb import load_kb
from trace_crs.kb.store import sha256_file
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE


def biz(bid="a", **extra):
    rec = {"business_id": bid, "name": f"Place {bid}", "address": "1 Main St", "city": "Tampa", "state": "FL",
           "latitude": 27.95, "longitude": -82.45, "stars": 4.0, "review_count": 9,
           "attributes": {"RestaurantsPriceRange2": "2"}, "categories": "Restaurants, Thai"}
    rec.update(extra)
    return rec


def rev(rid, bid="a", **extra):
    return {"review_id": rid, "user_id": "u", "business_id": bid, "stars": 4, "text": "Nice.",
            "date": "2019-05-01 12:00:00", **extra}


def lines(records) -> str:
    return "".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in records)


GOOD_REVIEWS = [rev(f"r{i}") for i in range(3)]

# (business lines, review lines, exit code, message fragment)
CASES = [
    ([], [], 3, f"{BUSINESS_FILE}: field '<file>': no business"),
    ([biz(latitude=float("nan"))], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'latitude'"),
    ([biz(latitude=float("inf"))], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'latitude'"),
    ([biz(latitude=999)], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'latitude'"),
    ([biz(longitude=-200)], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'longitude'"),
    ([biz(stars=-1)], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'stars'"),
    ([biz(stars=7.5)], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'stars'"),
    ([biz(review_count=-3)], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'review_count'"),
    ([biz(bid="")], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'business_id': empty"),
    ([biz(), biz()], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:2: field 'business_id': duplicate"),
    ([biz(latitude="north")], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field 'latitude': expected"),
    ([biz(), "{oops\n"], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:2: field '<json>'"),
    (["[" * 50000 + "]" * 50000 + "\n"], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field '<json>'"),
    (["[1, 2]\n"], GOOD_REVIEWS, 3, f"{BUSINESS_FILE}:1: field '<record>'"),
    ([biz()], GOOD_REVIEWS + [rev("r0")], 3, f"{REVIEW_FILE}:4: field 'review_id': duplicate"),
    ([biz()], GOOD_REVIEWS + [rev("")], 3, f"{REVIEW_FILE}:4: field 'review_id': empty"),
    ([biz()], GOOD_REVIEWS + [rev("r9", stars=-2)], 3, f"{REVIEW_FILE}:4: field 'stars'"),
    ([biz()], GOOD_REVIEWS + [rev("r9", stars=4.5)], 3, f"{REVIEW_FILE}:4: field 'stars'"),
    ([biz()], GOOD_REVIEWS + [rev("r9", text=None)], 3, f"{REVIEW_FILE}:4: field 'text'"),
    ([biz()], GOOD_REVIEWS + [{"review_id": "r9", "stars": 4}], 3, f"{REVIEW_FILE}:4: field 'business_id': missing"),
]


def build(tmp_path: Path, businesses, reviews, raw: bytes | None = None, out: Path | None = None) -> int:
    src = tmp_path / "yelp"
    src.mkdir(exist_ok=True)
    (src / BUSINESS_FILE).write_bytes(raw if raw is not None else lines(businesses).encode())
    (src / REVIEW_FILE).write_text(lines(reviews))
    before = {p: sha256_file(p) for p in src.iterdir()}
    code = main(["kb", "build", "--source", "yelp", "--yelp-dir", str(src), "--per-cell", "2",
                 "--out", str(out or tmp_path / "kb")])
    assert {p: sha256_file(p) for p in src.iterdir()} == before, "an input changed"
    return code


@pytest.mark.parametrize("businesses,reviews,code,message", CASES, ids=[c[3][:50] for c in CASES])
def test_hostile_yelp_rows(tmp_path, capsys, businesses, reviews, code, message):
    assert build(tmp_path, businesses, reviews) == code
    assert message in capsys.readouterr().err
    assert not (tmp_path / "kb").exists()


def test_non_utf8_bytes_name_the_line(tmp_path, capsys):
    raw = (json.dumps(biz()) + "\n").encode() + b'{"business_id": "\xff"}\n'
    assert build(tmp_path, [], GOOD_REVIEWS, raw=raw) == 3
    assert f"{BUSINESS_FILE}:2: field '<bytes>': not UTF-8" in capsys.readouterr().err


def test_good_rows_build_and_an_out_holding_other_files_is_refused(tmp_path, capsys):
    assert build(tmp_path, [biz()], GOOD_REVIEWS) == 0
    assert len(load_kb(tmp_path / "kb").pois) == 1
    stranger = tmp_path / "notes"
    stranger.mkdir()
    (stranger / "thesis.tex").write_text("precious")
    assert build(tmp_path, [biz()], GOOD_REVIEWS, out=stranger) == 2
    assert "is not a KB directory" in capsys.readouterr().err
    assert (stranger / "thesis.tex").read_text() == "precious"


def test_edited_or_half_written_kb_does_not_load(tmp_path):
    assert build(tmp_path, [biz()], GOOD_REVIEWS) == 0
    kb_dir = tmp_path / "kb"
    (kb_dir / "reviews.jsonl").write_text((kb_dir / "reviews.jsonl").read_text().replace("Nice.", "Bad."))
    with pytest.raises(ValueError, match="reviews.jsonl: field 'sha256': does not match MANIFEST.json"):
        load_kb(kb_dir)


def test_kill_9_during_build_never_leaves_a_valid_but_different_kb(tmp_path):
    """20 seeded kill points over a synthetic build that replaces an existing KB: afterwards the
    directory is either the old KB, the new KB (identical to an uninterrupted build), or absent."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TQDM_DISABLE": "1"}
    cmd = [sys.executable, "-m", "trace_crs", "kb", "build", "--source", "synthetic", "--per-cell", "3"]
    ref_old, ref_new = tmp_path / "ref_old", tmp_path / "ref_new"
    subprocess.run(cmd + ["--seed", "1", "--out", str(ref_old)], check=True, env=env, capture_output=True)
    subprocess.run(cmd + ["--seed", "2", "--out", str(ref_new)], check=True, env=env, capture_output=True)
    digest = {name: {f: sha256_file(d / f) for f in ("pois.jsonl", "reviews.jsonl", "MANIFEST.json")}
              for name, d in (("old", ref_old), ("new", ref_new))}
    start = time.perf_counter()
    subprocess.run(cmd + ["--seed", "2", "--out", str(tmp_path / "timing")], check=True, env=env, capture_output=True)
    span = time.perf_counter() - start
    delays = np.random.default_rng(42).uniform(0.0, span, size=20)
    for i, delay in enumerate(delays):
        target = tmp_path / f"kb{i}"
        subprocess.run(cmd + ["--seed", "1", "--out", str(target)], check=True, env=env, capture_output=True)
        proc = subprocess.Popen(cmd + ["--seed", "2", "--out", str(target)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if not target.exists():
            continue
        state = {f: sha256_file(target / f) for f in ("pois.jsonl", "reviews.jsonl", "MANIFEST.json")}
        assert state in (digest["old"], digest["new"]), f"kill point {i} ({delay:.2f} s) left a mixed KB"
        load_kb(target)  # and whatever is there loads as valid
