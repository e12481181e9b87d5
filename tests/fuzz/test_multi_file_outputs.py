"""Multi-file outputs are one transaction (trace_crs.atomic.commit_files): ``release export
--yelp-bundle`` killed at any rename leaves the previous or the new layout *and* bundle, never a
bundle mixing new and old files; ``dialogues generate`` refuses to replace a ``<out>.splits/``
holding anything but split lists; a staging copy a killed ``release export``/``import`` left is
removed by the next run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile import tree_hash
from test_kill_commit import kill_everywhere

from trace_crs.cli import main


@pytest.fixture(scope="module")
def two_corpora(tmp_path_factory):
    """Two small synthetic KBs with a corpus each (different seeds: different bundles)."""
    root = tmp_path_factory.mktemp("two")
    out = []
    for seed in (42, 7):
        kb, d = root / f"kb{seed}", root / f"d{seed}" / "dialogues.jsonl"
        assert main(["--quiet", "kb", "build", "--per-cell", "10", "--seed", str(seed), "--out", str(kb)]) == 0
        assert main(["--quiet", "dialogues", "generate", "--kb", str(kb), "--n", "3", "--seed", str(seed),
                     "--out", str(d)]) == 0
        out.append((kb, d))
    return out


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_release_export_with_a_bundle_killed_at_every_rename(two_corpora, tmp_path):
    w = tmp_path / "w"
    w.mkdir()

    def argv(i: int) -> list[str]:
        kb, d = two_corpora[i]
        return ["release", "export", "--kb", str(kb), "--dialogues", str(d), "--out", str(w / "rel"),
                "--yelp-bundle", str(w / "yelp")]

    n = kill_everywhere(argv(0), argv(1), w / "yelp" / "yelp_academic_dataset_review.json", w)
    assert n >= 4  # journals, marker unlink, three renames: each one a kill point


def test_a_stale_staging_copy_is_removed_by_the_next_export(two_corpora, tmp_path):
    kb, d = two_corpora[0]
    pid = _dead_pid()
    stale = tmp_path / f".rel.tmp-{pid}"  # what a release export/import killed while staging leaves
    (stale / "kb").mkdir(parents=True)
    (stale / "kb" / "pois.jsonl").write_text("a whole KB copy\n")
    assert main(["--quiet", "release", "export", "--kb", str(kb), "--dialogues", str(d),
                 "--out", str(tmp_path / "rel")]) == 0
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]


@pytest.mark.parametrize("foreign", ["notes.txt", "sub/x.json", ".hidden"])
def test_generate_refuses_a_splits_directory_holding_other_files(two_corpora, tmp_path, capsys, foreign):
    kb, _ = two_corpora[0]
    out = tmp_path / "c.jsonl"
    argv = ["--quiet", "dialogues", "generate", "--kb", str(kb), "--n", "2", "--out", str(out)]
    assert main(argv) == 0
    (tmp_path / "c.splits" / foreign).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "c.splits" / foreign).write_text("mine\n")
    before = tree_hash(tmp_path)
    capsys.readouterr()
    assert main([*argv[:-4], "--n", "3", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "c.splits" in err and Path(foreign).parts[0] in err and err.count("\n") == 1
    assert tree_hash(tmp_path) == before


def test_generate_over_its_own_splits_directory_and_over_a_file_there(two_corpora, tmp_path, capsys):
    kb, _ = two_corpora[0]
    out = tmp_path / "c.jsonl"
    argv = ["--quiet", "dialogues", "generate", "--kb", str(kb), "--n", "2", "--out", str(out)]
    assert main(argv) == 0 and main(argv) == 0  # an earlier corpus's split lists are replaced
    import shutil
    shutil.rmtree(tmp_path / "c.splits")
    (tmp_path / "c.splits").write_text("a file, not a directory\n")
    before = tree_hash(tmp_path)
    assert main(argv) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert tree_hash(tmp_path) == before
