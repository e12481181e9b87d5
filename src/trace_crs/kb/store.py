"""Reading and writing a KB directory: ``pois.jsonl``, ``reviews.jsonl``, ``MANIFEST.json``.

Files are written with sorted keys, one record per line, ``\\n`` line ends and no trailing
spaces, so that the same records always give the same bytes (and SHA256).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trace_crs.atomic import publish_dir, recover, write_atomic
from trace_crs.errors import DataError, UsageError
from trace_crs.kb.schema import POI, KBFormatError, MissingInputError, Review, poi_from_dict, review_from_dict

POIS_FILE, REVIEWS_FILE, MANIFEST_FILE = "pois.jsonl", "reviews.jsonl", "MANIFEST.json"


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dump_jsonl(records: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    """Write records atomically (temp file + rename) as canonical JSON lines."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n")

    write_atomic(path, write)


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)``; a malformed line raises :class:`KBFormatError`."""
    path = Path(path)
    if not path.exists():
        raise MissingInputError(str(path), None, "<file>", "file not found")
    if path.is_dir():
        raise MissingInputError(str(path), None, "<file>", "is a directory, not a JSON-lines file")
    with open(path, "rb") as fh:  # decoded line by line, so a bad byte is reported at its line
        for lineno, raw in enumerate(fh, start=1):
            try:  # a byte-order mark opening the file (Windows editors) is not part of the JSON
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise KBFormatError(
                    str(path), lineno, "<bytes>", f"not UTF-8 ({exc.reason} at byte {exc.start})"
                ) from None
            if not text.strip():
                continue
            try:
                yield lineno, json.loads(text)
            except json.JSONDecodeError as exc:
                raise KBFormatError(str(path), lineno, "<json>", f"malformed JSON: {exc.msg}") from None
            except RecursionError:
                raise KBFormatError(str(path), lineno, "<json>", "JSON nested too deeply") from None


@dataclass
class KB:
    """An in-memory KB with the look-ups every layer above needs."""

    pois: dict[str, POI]
    reviews: dict[str, Review]
    manifest: dict[str, Any] = field(default_factory=dict)
    reviews_by_poi: dict[str, list[Review]] = field(init=False)
    _slices: dict[tuple[str, str], list[str]] = field(init=False)

    def __post_init__(self) -> None:
        by_poi: dict[str, list[Review]] = defaultdict(list)
        for review in self.reviews.values():
            by_poi[review.business_id].append(review)
        self.reviews_by_poi = {bid: sorted(rs, key=lambda r: r.review_id) for bid, rs in by_poi.items()}
        slices: dict[tuple[str, str], list[str]] = defaultdict(list)
        for poi in self.pois.values():
            slices[(poi.city, poi.poi_type)].append(poi.business_id)
        self._slices = {key: sorted(ids) for key, ids in slices.items()}

    @property
    def sha256(self) -> str:
        """SHA256 of the POI file (from the manifest), the KB's identity in signatures."""
        return self.manifest.get("files", {}).get(POIS_FILE, {}).get("sha256", "")

    def pois_in(self, city: str, poi_type: str) -> list[str]:
        """Sorted business ids of one city × type slice (the open-set pool)."""
        return self._slices.get((city, poi_type), [])

    def cities(self) -> list[str]:
        return sorted({city for city, _ in self._slices})

    def reviews_of(self, business_id: str) -> list[Review]:
        return self.reviews_by_poi.get(business_id, [])


def load_kb(directory: str | Path) -> KB:
    """Load and validate a KB directory; every review must belong to a known POI."""
    directory = recover(directory)  # a KB a killed ``kb build`` left aside is restored first
    pois: dict[str, POI] = {}
    pois_path = directory / POIS_FILE
    for lineno, rec in iter_jsonl(pois_path):
        poi = poi_from_dict(rec, str(pois_path), lineno)
        if poi.business_id in pois:
            raise KBFormatError(str(pois_path), lineno, "business_id", f"duplicate {poi.business_id}")
        pois[poi.business_id] = poi
    if not pois:  # an empty KB scores and generates nothing: refuse it at the boundary
        raise KBFormatError(str(pois_path), None, "<file>", "no POIs (an empty KB)")
    reviews: dict[str, Review] = {}
    reviews_path = directory / REVIEWS_FILE
    for lineno, rec in iter_jsonl(reviews_path):
        review = review_from_dict(rec, str(reviews_path), lineno)
        if review.business_id not in pois:
            raise KBFormatError(str(reviews_path), lineno, "business_id", f"unknown POI {review.business_id}")
        if review.review_id in reviews:
            raise KBFormatError(str(reviews_path), lineno, "review_id", f"duplicate {review.review_id}")
        reviews[review.review_id] = review
    manifest = verified_manifest(directory)
    return KB(pois=pois, reviews=reviews, manifest=manifest)


def verified_manifest(directory: Path) -> dict[str, Any]:
    """The KB's ``MANIFEST.json`` after checking that every file it lists still has the recorded
    SHA256 (a half-replaced or edited KB is a data error, not silently loaded); {} without one."""
    path = directory / MANIFEST_FILE
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise KBFormatError(str(path), None, "<json>", f"unreadable manifest: {exc}") from None
    for name, entry in (manifest.get("files") or {}).items():
        actual = sha256_file(directory / name) if (directory / name).exists() else "missing"
        if actual != entry.get("sha256"):
            raise KBFormatError(
                str(directory / name),
                None,
                "sha256",
                f"does not match {MANIFEST_FILE} ({actual[:12]} vs recorded "
                f"{str(entry.get('sha256'))[:12]}): the KB was modified or only partly written; rebuild it",
            )
    return manifest


KB_FILES = (POIS_FILE, REVIEWS_FILE, MANIFEST_FILE)


def write_kb(pois: list[POI], reviews: list[Review], directory: str | Path, manifest: dict[str, Any]) -> dict:
    """Write a KB directory deterministically and as a whole; returns the manifest with file
    SHA256s added.  The files are written into a temporary sibling directory that then replaces
    ``directory``: a killed build leaves either the previous KB or none, never a mixture.  An
    existing ``directory`` that holds anything but a KB (its three files, hidden tool files such
    as make's ``.build-args``, which are carried over, or ``*.tmp`` leftovers) is refused: it
    is not this command's output."""
    directory = Path(directory)
    if not pois:
        raise DataError("refusing to write a KB without POIs", file=str(directory))
    if directory.exists() and (
        not directory.is_dir()
        or any(
            p.name not in KB_FILES and not p.name.startswith(".") and not p.name.endswith(".tmp")
            for p in directory.iterdir()
        )
    ):
        raise UsageError(
            f"--out {directory} exists and is not a KB directory (it holds other files); "
            "choose a new or empty directory"
        )
    manifest = dict(manifest)

    def write(tmp: Path) -> None:  # into a staging sibling, published by one rename (trace_crs.atomic)
        dump_jsonl((p.to_dict() for p in sorted(pois, key=lambda p: p.business_id)), tmp / POIS_FILE)
        dump_jsonl((r.to_dict() for r in sorted(reviews, key=lambda r: r.review_id)), tmp / REVIEWS_FILE)
        manifest["files"] = {name: {"sha256": sha256_file(tmp / name)} for name in (POIS_FILE, REVIEWS_FILE)}
        (tmp / MANIFEST_FILE).write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n")

    publish_dir(directory, write)
    return manifest
