"""Outputs appear whole or not at all, and never over an input: every file the package writes
goes through here.

* :func:`write_atomic` hands a temporary sibling (same directory, so the final rename is atomic
  on POSIX) to a writer, then renames it over the target; on any error the temporary file is
  removed and the target is untouched.  A killed process leaves at most a hidden ``.*.tmp`` file.
* :func:`publish_dir` writes a whole output directory (a KB) into a hidden staging sibling
  ``.<name>.tmp-<pid>`` and publishes it by renaming: the previous directory goes aside as
  ``.<name>.old-<pid>``, the staging directory takes its name, the old one is removed.
* :func:`commit_files` writes several files that belong together (a score JSON and its
  Parquet tables; a corpus and its split lists; a run's records, predictions and manifest) as
  one commit: all are written to temporary siblings first; then a *journal*
  ``.<marker>.commit-<pid>`` listing the renames is written (atomically) beside the *marker*
  (the file readers look for, renamed last) — that is the commit point; then the marker is
  removed, the others renamed into place, the marker last, and the journal removed.  A kill
  before the journal leaves the previous complete output (its temporaries are stale); a kill
  after it leaves a journal that the next writer or reader (:func:`clean_stale`,
  :func:`recover`) rolls forward to the new complete output.  Outputs outside the marker's
  directory get a copy of the journal in theirs, written after the marker's.  This holds for
  a killed process (kill -9), not for power loss (nothing is fsync'ed).
* :func:`clean_stale` first rolls forward the journals killed writers left beside a target,
  then removes their leftovers (``.<name>.tmp-*``, ``.<name>.old-*``, ``.<name>.*.tmp``) and
  restores a previous directory a kill left aside between the two renames of
  :func:`publish_dir`.  :func:`recover` is what a reader calls before it opens an output.
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
_STALE = re.compile(r"(?:\d+\.tmp|tmp-\d+|old-\d+|commit-\d+)(?:\.\d+\.tmp)*")
_LEFTOVER = re.compile(r"\.(.+?)\.(" + _STALE.pattern + ")")
_JOURNAL = re.compile(r"\..+\.commit-(\d+)(\.\d+\.tmp)?")  # a journal, or one being written


def write_atomic(path: PathLike, write: Callable[[Path], Any]) -> Path:
    """Write ``path`` through ``write(tmp_path)``, then rename into place; returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(path)  # what a killed earlier write of this path left
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


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this process counts as alive)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _leftover(name: str) -> tuple[str, str] | None:
    """``(target name, suffix)`` when ``name`` is what a writer here leaves beside a target."""
    m = _LEFTOVER.fullmatch(name)
    return (m[1], m[2]) if m else None


def clean_stale(target: PathLike, everything: bool = False) -> list[Path]:
    """Roll forward the commits killed writers journaled beside ``target``, then remove their
    leftovers of ``target`` — of every target in its directory when ``everything`` (see module
    docstring); returns the journals and leftovers removed.  A ``.<name>.old-<pid>`` directory
    is moved back when ``<name>`` is missing (the kill fell between the two renames of
    :func:`publish_dir`)."""
    target = Path(target)
    if not target.parent.is_dir():
        return []
    removed = roll_forward(target.parent)
    for p in sorted(target.parent.iterdir()):
        parsed = _leftover(p.name)
        if parsed is None or (parsed[0] != target.name and not everything):
            continue
        name, rest = parsed
        if any(pid_alive(int(pid)) for pid in re.findall(r"\d+", rest)) or not (p.exists() or p.is_symlink()):
            continue
        if rest.startswith("old-") and not (original := p.with_name(name)).exists():
            os.replace(p, original)
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


def _replace(src: Path, dst: Path, pid: int | None = None) -> None:
    """``os.replace`` that also replaces a non-empty directory (moved aside as
    ``.<name>.old-<pid>``, then removed)."""
    if dst.is_dir() and not dst.is_symlink():
        old = dst.with_name(f".{dst.name}.old-{pid or os.getpid()}")
        os.replace(dst, old)
        os.replace(src, dst)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, dst)


def _journals(marker: Path, renames: list[tuple[Path, Path]]) -> list[tuple[Path, str]]:
    """``(journal path, text)`` per directory holding a rename, the marker's directory first;
    paths in a journal are relative to its own directory."""
    dirs = list(dict.fromkeys([marker.parent, *(dst.parent for _, dst in renames)]))
    paths = [d / f".{marker.name}.commit-{os.getpid()}" for d in dirs]
    out = []
    for d, j in zip(dirs, paths, strict=True):
        rel = [[os.path.relpath(t, d), os.path.relpath(p, d)] for t, p in renames]
        body = {"renames": rel, "journals": [os.path.relpath(q, d) for q in paths]}
        out.append((j, json.dumps(body, sort_keys=True) + "\n"))
    return out


def _apply(journal: Path, pid: int) -> None:
    """Do the renames ``journal`` lists (temporaries still present, in order: idempotent),
    then remove every copy of the journal."""
    body = json.loads(journal.read_text(encoding="utf-8"))  # written atomically: whole or absent
    d = journal.parent
    for tmp, dst in ((d / t, d / p) for t, p in body["renames"]):
        if tmp.exists() or tmp.is_symlink():
            _replace(tmp, dst, pid)
        old = dst.with_name(f".{dst.name}.old-{pid}")
        shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink(missing_ok=True)
    for other in body["journals"]:
        (d / other).unlink(missing_ok=True)


def roll_forward(directory: PathLike) -> list[Path]:
    """Complete every commit of :func:`commit_files` whose (dead) writer left a journal in
    ``directory`` (and removes journals a kill left half-written); returns the journals
    completed or removed."""
    directory = Path(directory)
    done = []
    for j in sorted(directory.iterdir()) if directory.is_dir() else []:
        m = _JOURNAL.fullmatch(j.name)
        if m and j.is_file() and not pid_alive(int(m[1])):
            j.unlink() if m[2] else _apply(j, int(m[1]))  # an unfinished journal commits nothing
            done.append(j)
    return done


def recover(path: PathLike) -> Path:
    """What a reader calls before opening ``path``: completes a commit a killed writer
    journaled, restores a directory left aside and removes the dead writers' leftovers in
    ``path``'s directory; returns ``path``.  Touches nothing when no writer was killed there."""
    path = Path(path)
    if path.parent.is_dir() and any(_leftover(p.name) or _JOURNAL.fullmatch(p.name) for p in path.parent.iterdir()):
        clean_stale(path, everything=True)
    return path


def commit_files(writers: Mapping[PathLike, Callable[[Path], Any]], marker: PathLike) -> list[Path]:
    """Write every ``path: write(tmp)`` of ``writers`` (``marker`` among them) as one commit;
    see the module docstring.  A path may be a directory (``write`` then fills ``tmp`` as one).
    Returns the paths written, marker last."""
    marker = Path(marker)
    items = [(Path(p), w) for p, w in writers.items()]
    if marker not in [p for p, _ in items]:
        raise ValueError(f"commit_files: marker {marker} is not among the files written")
    tmps: dict[Path, Path] = {}
    committed = False
    try:
        for path, write in items:
            path.parent.mkdir(parents=True, exist_ok=True)
            clean_stale(path)
            tmps[path] = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            write(tmps[path])
        journals = _journals(marker, [(tmps[p], p) for p, _ in items if p != marker] + [(tmps[marker], marker)])
        for journal, text in journals:  # the first one written (the marker's) is the commit point
            write_text(journal, text)
            committed = True
        marker.unlink(missing_ok=True)  # a reader that skips recover() sees no output, never a mix
        _apply(journals[0][0], os.getpid())
    finally:
        if not committed:  # after the commit point a failure leaves the journal to roll forward
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
