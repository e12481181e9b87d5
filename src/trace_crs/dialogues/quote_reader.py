"""The one reader of citation quotes in response text (paper §3, Appendix J: a quote is a verbatim
review span attributed to a numbered review, written ``"quote" [Rn]``).

The scorer (:mod:`trace_crs.metrics.quotes`, :mod:`trace_crs.metrics.grounding`), the LLM
baselines' citation records (``baselines.llm_common.extract_citations``, which RAG-Citation's
retry also checks) and the LLM dialogue generator (:mod:`trace_crs.dialogues.llm_turns`) all read
quotes here, so a system's own citation records and its score read the same quotes.

Forms read (each a :class:`Quote` with the labels it cites):

1. ``"q" [Rn]``: straight double quotes, then the label (:data:`QUOTE_RE`, the canonical form;
   text written only in it reads exactly as ``QUOTE_RE.finditer`` reads it).
2. The same with typographic marks, “q” [Rn], „q“ [Rn], «q» [Rn], where no straight quote is;
   typographic marks inside a straight quote (and straight ones inside a typographic quote) are
   its text, as in a review.
3. Several labels after one quote: ``"q" [R1, R2]``, ``"q" [R1][R2]``, ``"q" [R1] [R2]`` (labels
   on the same line; a further label that directly precedes another quote is that quote's:
   ``"a" [R1] [R2] "b"`` is ``a`` → R1, ``b`` → R2).  The quote cites each of them:
   :attr:`Quote.labels`.
4. Label first: ``[Rn] "q"`` (also ``[Rn]: "q"``, and with several labels) when the label
   directly precedes the quote and no label of its own follows it — a following label that
   itself directly precedes another quote belongs to that quote (``[R1] "a" [R2] "b"``).

Which label a quote takes when both readings are possible: the text is read twice — trailing
labels first, then label-first quotes in what is left; and label-first first, then trailing —
and the reading that attributes more quotes wins, a tie going to trailing labels (App. J's form).
So in ``"a" [R1] "b"`` the label closes the quote before it (``a`` → R1, ``b`` unread), while
``[R1] "a" [R2] "b"`` reads ``a`` → R1, ``b`` → R2.

Not read (``metrics.quotes.quote_counts`` counts them in the score file): labels in lower case
(``[r1]``) or parentheses (``(R1)``), single quotation marks (they are apostrophes too:
``don't``), quoted spans without a label.  A straight quote nested in a straight quote is read
as regular expressions pair the marks (``"She said "wow" twice" [R1]`` → ``" twice"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

# the mark constants live in the lowest layer, beside the sentence splitter that pairs them too
from trace_crs.segment import CLOSING, OPENING, TYPOGRAPHIC

__all__ = [
    "ANY_LABEL_RE",
    "CLOSING",
    "LABEL_RE",
    "NAME_RE",
    "OPENING",
    "QUOTE_RE",
    "TYPOGRAPHIC",
    "Quote",
    "blank_quotes",
    "label_names",
    "parse_quotes",
    "quote_spans",
]

# The canonical citation of every generated response (ARCHITECTURE §3): a verbatim review span
# in straight double quotes followed by its label, ``"span" [Rn]``.
QUOTE_RE = re.compile(r'"([^"]+)"\s*\[(R\d+)\]')
LABEL_RE = re.compile(r"\[(R\d+)\]")
# A label as systems write it: one ``[Rn]`` or a group ``[R1, R2]`` (the names: :func:`label_names`).
ANY_LABEL_RE = re.compile(r"\[(R\d+(?:\s*,\s*R\d+)*)\]")
NAME_RE = re.compile(r"R\d+")  # one label name inside a label

_ONE = r"\[R\d+(?:\s*,\s*R\d+)*\]"
_LABELS = rf"{_ONE}(?:[ \t]*{_ONE})*+"  # several labels on one line
_OPENS_QUOTE = rf'[ \t]*:?\s*["{OPENING}]'  # what follows a label that leads a quote (form 4)
# after a quote, a further label joins its labels unless it directly leads another quote
_TRAILING_LABELS = rf"{_ONE}(?:[ \t]*{_ONE}(?!{_OPENS_QUOTE}))*"
_QUOTES = (r'"(?P<q>[^"\0]+)"', rf"[{OPENING}](?P<q>[^{TYPOGRAPHIC}\0]+)[{CLOSING}]")  # straight, typographic
_NEXT_IS_OWN_LABEL = rf"(?!\s*{_ONE}(?!{_OPENS_QUOTE}))"  # form 4's "no label of its own follows"
_TRAILING_RE = tuple(re.compile(rf"{q}\s*(?P<l>{_TRAILING_LABELS})") for q in _QUOTES)
_LABEL_RUN = re.compile(_LABELS)
_LEAD_RE = tuple(re.compile(rf"[ \t]*:?\s*{q}{_NEXT_IS_OWN_LABEL}") for q in _QUOTES)  # after a label run
_FILL = "\0"  # what a read quote is blanked with between passes (not white space: no new adjacency)


@dataclass(frozen=True)
class Quote:
    """One quoted span of a response: quote text, (first) label, offset of the opening quote mark,
    and every label it cites (``labels``; ``(label,)`` for a single label)."""

    text: str
    label: str
    start: int
    labels: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.labels:
            object.__setattr__(self, "labels", (self.label,))


def label_names(text: str) -> list[str]:
    """Every label name of ``text`` in order, groups ``[R1, R2]`` opened (``["R1", "R2"]``)."""
    return [n for m in ANY_LABEL_RE.finditer(text) for n in NAME_RE.findall(m.group(1))]


def _blank(text: str, spans: list[tuple[int, int]], fill: str = " ") -> str:
    for a, b in spans:
        text = text[:a] + fill * (b - a) + text[b:]
    return text


# One match of a pass: (start, end, quote start, quote end, the label text).
_Match = tuple[int, int, int, int, str]
_Pass = Callable[[str], Iterator[_Match]]


def _trailing(rx: re.Pattern[str]) -> _Pass:
    def find(rest: str) -> Iterator[_Match]:
        for m in rx.finditer(rest):
            yield m.start(), m.end(), m.start("q"), m.end("q"), m.group("l")

    return find


def _leading(rx: re.Pattern[str]) -> _Pass:
    """Label runs followed by a quote (form 4); a run is matched whole, so the scan is linear."""

    def find(rest: str) -> Iterator[_Match]:
        done = 0
        for run in _LABEL_RUN.finditer(rest):
            m = rx.match(rest, run.end()) if run.start() >= done else None
            if m:
                done = m.end()
                yield run.start(), m.end(), m.start("q"), m.end("q"), run.group()

    return find


_TRAILING = tuple(_trailing(rx) for rx in _TRAILING_RE)
_LEADING = tuple(_leading(rx) for rx in _LEAD_RE)


def _read(text: str, passes: tuple[_Pass, ...]) -> list[tuple[int, int, Quote]]:
    """Quotes found by ``passes`` in turn, each pass on what the earlier ones left."""
    found: list[tuple[int, int, Quote]] = []
    rest = text
    for find in passes:
        for a, b, qa, qb, labels in find(rest):
            names = tuple(dict.fromkeys(NAME_RE.findall(labels)))
            found.append((a, b, Quote(text[qa:qb], names[0], qa - 1, names)))
        rest = _blank(rest, [(a, b) for a, b, _ in found], _FILL)
    return sorted(found, key=lambda x: x[0])


@lru_cache(maxsize=65_536)
def _spans(text: str) -> tuple[tuple[int, int, Quote], ...]:
    if not ANY_LABEL_RE.search(text):
        return ()  # every form needs a label
    trailing = _read(text, _TRAILING + _LEADING)
    leading = _read(text, _LEADING + _TRAILING)
    return tuple(leading if len(leading) > len(trailing) else trailing)


def quote_spans(text: str) -> list[tuple[int, int, Quote]]:
    """``(start, end, quote)`` of every quote of ``text`` in order; ``start``–``end`` covers the
    quote and its labels (module docstring)."""
    return list(_spans(text))


def parse_quotes(text: str) -> list[Quote]:
    """The quotes of a response, in order (module docstring)."""
    return [q for _, _, q in _spans(text)]


def blank_quotes(text: str) -> str:
    """``text`` with every quote and its labels replaced by spaces (offsets kept)."""
    return _blank(text, [(a, b) for a, b, _ in _spans(text)])
