"""Inconsistencies a release can carry and still be imported (paper Appendix H: what a turn's
quote pointers promise), :data:`KINDS`:

* ``review_not_referenced`` — a quote whose review is not among its turn's ``referenced_review_ids``;
* ``dangling_label`` — a label in a turn's text that none of its quotes carries (labels read as
  the scorer reads them, :func:`trace_crs.dialogues.quote_reader.label_names`: ``[R1, R2]`` names two);
* ``label_two_reviews`` — a label on quotes of different reviews in one turn (``[R1]`` names one
  review: the scorer reads a label's quotes as that review's);
* ``repeated_q`` — a quote number ``q`` that appears twice in a turn;
* ``utf16_offsets`` — offsets counted in UTF-16 code units, not code points
  (:func:`reads_as_utf16`), looked for in pointers without a span checksum.

The import counts them per file in its mapping report (the first :data:`FIRST` of each kind with
file, line and field) and imports anyway; ``--strict`` refuses the release on the first one,
a :class:`ReleaseInconsistencyError` (exit 4), before anything is written.  The line is that of
the finding's own field (:func:`finding_lines`; 1 in a minified file, where the field path
says where), or the record id's line where the field cannot be located.

Offsets outside the review (negative, ``start >= end``, ``end`` past the text) are not an
inconsistency but an error of the import (exit 3, naming file and field), for a POI card's
pointer as for a dataset quote, with or without ``span``/``span_sha256``: no span can be read
from them, so there is nothing to import at the offsets as given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from trace_crs.dialogues.quote_reader import label_names
from trace_crs.errors import DataError
from trace_crs.release.checks import ReleaseFormatError
from trace_crs.release.locate import JsonPath, field_offsets, line_at, parse_field
from trace_crs.release.official import span_sha256

KINDS: dict[str, str] = {
    "review_not_referenced": "quotes citing a review their turn does not reference",
    "dangling_label": "labels on no quote",
    "label_two_reviews": "labels on quotes of different reviews",
    "repeated_q": "repeated quote numbers",
    "utf16_offsets": "offsets in UTF-16 units",
}
DATASET_KINDS, CARD_KINDS = tuple(KINDS), ("utf16_offsets",)  # what each release file can carry
FIRST = 5  # findings of each kind the report shows in full (file, line, field)


class Finding(TypedDict):
    """One inconsistency: its kind, the record (a dialogue id, or a POI card's business id), the
    field (``[i].turns[t].quotes[k].review_id``) and the problem."""

    kind: str
    record: str
    field: str
    problem: str


class ReleaseInconsistencyError(ReleaseFormatError):
    """``--strict`` import of a release with an inconsistency of :data:`KINDS` (exit 4: the
    release is well-formed and imports without ``--strict``); names file, line and field."""

    exit_code = 4

    def __init__(self, path: str, line: int | None, noun: str, finding: Finding, summary: str):
        DataError.__init__(
            self,
            f"{noun} {finding['record']}: {finding['problem']} (--strict refuses: {summary})",
            file=path,
            line=line,
            field=finding["field"],
        )
        self.dialogue_id = finding["record"] if noun == "dialogue" else None


def utf16_span(text: str, start: int, end: int) -> str | None:
    """``text[start:end]`` with the offsets counted in UTF-16 code units (as JavaScript or Java
    count them); None when they fall outside the text or split a surrogate pair."""
    units = text.encode("utf-16-le")
    if not 0 <= start < end <= len(units) // 2:
        return None
    try:
        return units[2 * start : 2 * end].decode("utf-16-le")
    except UnicodeDecodeError:
        return None


def _on_word_bounds(text: str, start: int, end: int) -> bool:
    span = text[start:end]
    cut_start = start > 0 and text[start - 1].isalnum() and text[start].isalnum()
    cut_end = end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    return bool(span) and span == span.strip() and not (cut_start or cut_end)


def reads_as_utf16(text: str, start: int, end: int) -> bool:
    """The offsets read as UTF-16 units give another span than read as code points (a character
    outside the BMP, e.g. an emoji, precedes the end), that span lies on word boundaries (no word
    cut, no white space at its ends), and the code-point reading does not or falls outside the
    text.  Without a span checksum this is the evidence there is: a quote is a verbatim span."""
    u16 = utf16_span(text, start, end)
    in_range = 0 <= start < end <= len(text)
    if u16 is None or (in_range and (text[start:end] == u16 or _on_word_bounds(text, start, end))):
        return False
    a = len(utf16_span(text, 0, start) or "")
    return _on_word_bounds(text, a, a + len(u16))


def utf16_problem(p: dict[str, Any], text: str) -> str:
    """What a pointer whose offsets read as UTF-16 units is told (also the import's error hint)."""
    return (
        f"offsets {p['start']}:{p['end']} of review {p['review_id']} read as code points cut a word or fall "
        f"outside the review; read as UTF-16 code units they give {utf16_span(text, p['start'], p['end'])!r}"
    )


def utf16_hint(p: dict[str, Any], text: str) -> str:
    """The hint an import error on a pointer's offsets carries when they read as UTF-16 units:
    the UTF-16 reading gives the span of ``span_sha256``, or (without one) :func:`reads_as_utf16`."""
    u16 = utf16_span(text, p["start"], p["end"])
    if "span_sha256" in p:
        hit = u16 is not None and span_sha256(u16) == p["span_sha256"]
    else:
        hit = reads_as_utf16(text, p["start"], p["end"])
    return f" ({utf16_problem(p, text)}: the release counts offsets in UTF-16 units)" if hit else ""


def out_of_range(p: dict[str, Any], text: str) -> str | None:
    """What a POI card's pointer whose offsets fall outside its review is told (an error of the
    import, see the module docstring), with the UTF-16 hint; None when they are in range."""
    if 0 <= p["start"] < p["end"] <= len(text):
        return None
    return (
        f"offsets {p['start']}:{p['end']} of review {p['review_id']} fall outside the review "
        f"({len(text)} characters){utf16_hint(p, text)}"
    )


def dialogue_findings(records: list[dict[str, Any]], review_text: Callable[[str], str | None]) -> list[Finding]:
    """Every inconsistency of :data:`KINDS` in the dialogues of ``crs_dataset.json``, in file
    order; ``review_text(review_id)`` is the hydrating review's text (None: not in the bundle).
    UTF-16 offsets are looked for in pointers without ``span_sha256`` (with one, a wrong reading
    is an error of the import)."""
    out: list[Finding] = []
    for i, rec in enumerate(records):
        did = rec["dialogue_id"]
        for t, turn in enumerate(rec["turns"]):
            quotes, where, referenced = turn.get("quotes") or [], f"[{i}].turns[{t}]", turn.get("referenced_review_ids")
            seen: Counter[int] = Counter()
            for k, q in enumerate(quotes):
                at, text = f"{where}.quotes[{k}]", review_text(q["review_id"])
                if q["review_id"] not in (referenced or []):
                    why = "is not in the turn's referenced_review_ids" if referenced else "(the turn references none)"
                    out.append(
                        _found("review_not_referenced", did, f"{at}.review_id", f"review {q['review_id']} {why}")
                    )
                seen[q["q"]] += 1
                if seen[q["q"]] == 2:
                    out.append(_found("repeated_q", did, f"{at}.q", f"[Q:{q['q']}] is the number of an earlier quote"))
                if "span_sha256" not in q and text is not None and reads_as_utf16(text, q["start"], q["end"]):
                    out.append(_found("utf16_offsets", did, f"{at}.start", utf16_problem(q, text)))
            out += _label_two_reviews(quotes, did, where)
            for label in sorted(set(label_names(turn["text"])) - {q["label"] for q in quotes}):
                out.append(_found("dangling_label", did, f"{where}.text", f"[{label}] is on none of the turn's quotes"))
    return out


def _label_two_reviews(quotes: list[dict[str, Any]], did: str, where: str) -> list[Finding]:
    """Per label on quotes of different reviews: a finding at the first quote citing a review other
    than the label's first, naming each review once with the first quote citing it."""
    reviews: dict[str, dict[str, int]] = {}  # label -> review id -> q of its first quote
    other: dict[str, int] = {}  # label -> index of the first quote citing a second review
    for k, q in enumerate(quotes):
        cited = reviews.setdefault(q["label"], {})
        if cited and q["review_id"] not in cited:
            other.setdefault(q["label"], k)
        cited.setdefault(q["review_id"], q["q"])
    return [
        _found(
            "label_two_reviews",
            did,
            f"{where}.quotes[{k}].label",
            f"[{label}] is on quotes of different reviews: "
            + ", ".join(f"{rid} ([Q:{n}])" for rid, n in reviews[label].items()),
        )
        for label, k in other.items()
    ]


def card_findings(cards: list[dict[str, Any]], review_text: Callable[[str], str | None]) -> list[Finding]:
    """UTF-16 offsets in the pointers of ``poi_knowledge_base.json`` that carry neither ``span``
    nor ``span_sha256`` (with either, a wrong reading is an error of the import)."""
    out: list[Finding] = []
    for i, card in enumerate(cards):
        for k, p in enumerate(card.get("citations") or []):
            text = review_text(p["review_id"])
            if "span" in p or "span_sha256" in p or text is None or not reads_as_utf16(text, p["start"], p["end"]):
                continue
            out.append(
                _found("utf16_offsets", card["business_id"], f"[{i}].citations[{k}].start", utf16_problem(p, text))
            )
    return out


def _found(kind: str, record: str, field_name: str, problem: str) -> Finding:
    return {"kind": kind, "record": record, "field": field_name, "problem": problem}


def first_lines(path: str | Path, ids: list[str]) -> dict[str, int | None]:
    """The 1-based line where each id first appears as a JSON string in ``path`` (a dialogue's
    ``dialogue_id``, a card's key or ``business_id``); None when it is written with escapes."""
    text = Path(path).read_text(encoding="utf-8")
    out: dict[str, int | None] = {}
    for rid in dict.fromkeys(ids):
        at = text.find(f'"{rid}"')
        out[rid] = text.count("\n", 0, at) + 1 if at >= 0 else None
    return out


def _json_path(finding: Finding, noun: str, wrapped: bool) -> JsonPath:
    """A finding's field as a path in its file: the records are the top-level array, or in an
    object the dialogues under ``"dialogues"`` and the cards keyed by business id
    (:func:`trace_crs.release.checks.dialogue_records`, :func:`~trace_crs.release.checks.card_records`)."""
    steps = parse_field(finding["field"])
    if not wrapped:
        return steps
    return ("dialogues", *steps) if noun == "dialogue" else (finding["record"], *steps[1:])


def finding_lines(path: Path, noun: str, findings: list[Finding]) -> list[int | None]:
    """The 1-based line of each finding's own field in ``path`` (:mod:`trace_crs.release.locate`);
    where it cannot be located, the line of the record's id (:func:`first_lines`)."""
    text = path.read_text(encoding="utf-8")
    wrapped = text.lstrip()[:1] == "{"
    paths = [_json_path(f, noun, wrapped) for f in findings]
    at = field_offsets(text, paths)
    missing = [f["record"] for f, p in zip(findings, paths, strict=True) if p not in at]
    ids = first_lines(path, missing) if missing else {}
    return [line_at(text, at[p]) if p in at else ids[f["record"]] for f, p in zip(findings, paths, strict=True)]


def summary(files: dict[str, dict[str, Any]]) -> str:
    """One line: each file's count of each kind it can carry."""
    return "; ".join(
        f"{name}: " + ", ".join(f"{v['count']} {KINDS[k]}" for k, v in kinds.items()) for name, kinds in files.items()
    )


def check_release(
    files: list[tuple[Path, str, tuple[str, ...], list[Finding]]], strict: bool = False
) -> dict[str, dict[str, Any]]:
    """The report's ``consistency`` section from ``(path, noun, kinds, findings)`` per release file:
    per file name and kind, the count and the first :data:`FIRST` findings (line, field, record,
    problem).  ``strict``: raise :class:`ReleaseInconsistencyError` on the first finding."""
    out: dict[str, dict[str, Any]] = {}
    for path, noun, kinds, findings in files:
        of_kind = {kind: [f for f in findings if f["kind"] == kind] for kind in kinds}
        shown = [f for kind in kinds for f in of_kind[kind][:FIRST]]
        lines = iter(finding_lines(path, noun, shown) if shown else [])
        out[path.name] = {
            kind: {
                "count": len(of_kind[kind]),
                "first": [
                    {"line": next(lines), "field": f["field"], "record": f["record"], "problem": f["problem"]}
                    for f in of_kind[kind][:FIRST]
                ],
            }
            for kind in kinds
        }
    if strict:
        for path, noun, _kinds, findings in files:
            if findings:
                first = findings[0]
                line = finding_lines(path, noun, [first])[0]
                raise ReleaseInconsistencyError(str(path), line, noun, first, summary(out))
    return out
