"""Outputs appear whole or not at all, and never over an input: every file the package writes
goes through here.

* :func:`write_atomic` hands a temporary sibling (same directory, so the final rename is atomic
  on POSIX) to a writer, then renames it over the target; on any error the temporary file is
  removed and the target is untouched.  A killed process leaves at most a hidden ``.*.tmp`` file.
* :func:`publish_dir` writes a whole output directory (a KB) into a hidden staging sibling
  ``.<name>.tmp-<pid>`` and publishes it by renaming: the previous directory goes aside as
  ``.<name>.old-<pid>``, the staging directory takes its name, the old one is removed.
* :func:`commit_files` writes several files that belong together (a score JSON and its
  Parquet tables; a corpus and its split lists): all are written to temporary siblings first,
  then the *marker* (the file readers look for, written last) is removed, the others are
  renamed into place and the marker last.  A kill while writing leaves the previous complete
  output; a kill inside the final renames leaves no marker — an absent output, never a
  marker that disagrees with its tables.
* :func:`clean_stale` removes what a killed writer left beside a target (``.<name>.tmp-*``,
  ``.<name>.old-*``, ``.<name>.*.tmp``) when that process is gone, and restores a previous
  directory a kill left aside between the two renames of :func:`publish_dir`.
* :func:`refuse_overlap` is the one output guard (CLI and API): an output that is, contains
  or lies inside an input is a :class:`~trace_crs.errors.UsageError`, inputs untouched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from trace_crs.errors import UsageError

PathLike = str | Path
# what follows ``<target name>.`` in a leftover's name (a writer's temporary file may itself be
# written through write_atomic, hence the repeats)
_STALE = re.compile(r"(?:\d+\.tmp|tmp-\d+|old-\d+)(?:\.\d+\.tmp)*")


def write_atomic(path: PathLike, write: Callable[[Path], Any]) -> Path:
    """Write ``path`` through ``write(tmp_path)``, then rename into place; returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text(path: PathLike, text: str) -> Path:
    """UTF-8 text, atomically, with ``\\n`` line ends."""
    return write_atomic(path, lambda t: t.write_text(text, encoding="utf-8", newline="\n"))


def write_json(obj: Any, path: PathLike, indent: int | None = None) -> Path:
    """Canonical JSON (sorted keys, NaN refused), atomically."""
    return write_text(path, json.dumps(obj, sort_keys=True, indent=indent, allow_nan=False) + "\n")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def clean_stale(target: PathLike) -> list[Path]:
    """Remove the leftovers of killed writers of ``target`` (see module docstring); returns
    what was removed.  A ``.<name>.old-<pid>`` directory is moved back when ``target`` is
    missing (the kill fell between the two renames of :func:`publish_dir`)."""
    target = Path(target)
    if not target.parent.is_dir():
        return []
    removed = []
    for p in sorted(target.parent.iterdir()):
        bare = p.name.lstrip(".")
        if not (p.name.startswith(".") and bare.startswith(target.name + ".")):
            continue
        rest = bare[len(target.name) + 1 :]
        if not _STALE.fullmatch(rest) or any(_alive(int(pid)) for pid in re.findall(r"\d+", rest)):
            continue
        if rest.startswith("old-") and not target.exists():
            os.replace(p, target)
            continue
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
        removed.append(p)
    return removed


def publish_dir(directory: PathLike, write: Callable[[Path], Any], carry_hidden: bool = True) -> Path:
    """Write ``directory`` as a whole: ``write(staging_dir)`` fills a hidden sibling that then
    replaces ``directory`` (hidden files of the previous one, e.g. make stamps, are carried
    over when ``carry_hidden``).  A failure leaves the previous directory as it was."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(directory)
    tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
    old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write(tmp)
        if directory.exists():
            if carry_hidden:
                for hidden in directory.glob(".*"):
                    if hidden.is_file() and not (tmp / hidden.name).exists():
                        shutil.copy2(hidden, tmp / hidden.name)
            os.replace(directory, old)
        os.replace(tmp, directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def _replace(src: Path, dst: Path) -> None:
    """``os.replace`` that also replaces a non-empty directory (moved aside, then removed)."""
    if dst.is_dir() and not dst.is_symlink():
        old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        os.replace(dst, old)
        os.replace(src, dst)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, dst)


def commit_files(writers: Mapping[PathLike, Callable[[Path], Any]], marker: PathLike) -> list[Path]:
    """Write every ``path: write(tmp)`` of ``writers`` (``marker`` among them) as one commit;
    see the module docstring.  A path may be a directory (``write`` then fills ``tmp`` as one).
    Returns the paths written, marker last."""
    marker = Path(marker)
    items = [(Path(p), w) for p, w in writers.items()]
    if marker not in [p for p, _ in items]:
        raise ValueError(f"commit_files: marker {marker} is not among the files written")
    tmps: dict[Path, Path] = {}
    try:
        for path, write in items:
            path.parent.mkdir(parents=True, exist_ok=True)
            clean_stale(path)
            tmps[path] = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            write(tmps[path])
        marker.unlink(missing_ok=True)  # from here on the previous output is no longer complete
        for path, _ in items:
            if path != marker:
                _replace(tmps[path], path)
        os.replace(tmps[marker], marker)
    finally:
        for tmp in tmps.values():
            shutil.rmtree(tmp, ignore_errors=True) if tmp.is_dir() else tmp.unlink(missing_ok=True)
    return [p for p, _ in items if p != marker] + [marker]


def _resolve(p: PathLike) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(p)))).resolve()


def _same(a: Path, b: Path) -> bool:
    try:
        return a == b or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _hard_linked_into(o: Path, directory: Path) -> bool:
    """Whether existing file ``o`` has another name (a hard link) under ``directory``."""
    st = o.stat()
    for root, _, files in os.walk(directory):
        for f in files:
            try:
                s = os.stat(os.path.join(root, f))
            except OSError:
                continue
            if (s.st_ino, s.st_dev) == (st.st_ino, st.st_dev):
                return True
    return False


def refuse_overlap(outputs: Iterable[PathLike | None], inputs: Iterable[PathLike | None], flag: str = "--out") -> None:
    """UsageError when an output is an input (also through a symlink or hard link), lies
    inside an input directory, or is a directory holding an input."""
    ins = [(Path(i), _resolve(i)) for i in inputs if i is not None and i != ""]
    for out in outputs:
        if out is None or out == "":
            continue
        o = _resolve(out)
        for raw, i in ins:
            how = (
                "is it"
                if _same(o, i)
                else "lies inside it"
                if i in o.parents
                else "contains it"
                if o in i.parents
                else None
            )
            if how is None and o.is_file() and o.stat().st_nlink > 1 and i.is_dir() and _hard_linked_into(o, i):
                how = "a hard link to a file inside it"
            if how:
                raise UsageError(f"{flag} {out} would overwrite the input {raw} ({how}); choose another output path")
