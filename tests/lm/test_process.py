"""trace_crs.lm.process: a server child keeps its parent's niceness under autogroup scheduling."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trace_crs.lm.process import keep_niceness

CHILD = "import sys; from trace_crs.lm.process import keep_niceness; keep_niceness(sys.argv[1])"


def niced(increment: int) -> int:
    """The niceness of a child started with ``nice -n increment`` (relative to this process's; the kernel caps it at 19)."""
    return min(os.nice(0) + increment, 19)


@pytest.mark.parametrize("increment", [0, 5])
def test_keep_niceness_writes_only_a_positive_niceness(tmp_path, increment):
    target = tmp_path / "autogroup"
    subprocess.run(["nice", "-n", str(increment), sys.executable, "-c", CHILD, str(target)], check=True)
    expected = str(niced(increment)) if niced(increment) > 0 else None
    assert (target.read_text() if target.exists() else None) == expected


def test_keep_niceness_tolerates_an_unwritable_file(tmp_path):
    keep_niceness(str(tmp_path / "missing-dir" / "autogroup"))   # no error: the kernel's default stays


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no autogroup scheduling here")
def test_a_server_child_in_its_own_session_is_niced_like_its_parent():
    code = (
        "import subprocess, sys; from trace_crs.lm.process import server_child\n"
        "p = subprocess.Popen(['sleep', '5'], start_new_session=True, preexec_fn=server_child)\n"
        "print(open(f'/proc/{p.pid}/autogroup').read()); p.kill()"
    )
    out = subprocess.run(["nice", "-n", "7", sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.split()[-2:] == ["nice", str(niced(7))]
