"""Import the official release into our KB and corpus (paper §2.1 Release, Appendices D, H).

Inputs: ``crs_dataset.json``, ``poi_knowledge_base.json``, a splits directory
(``test_dialogue_ids.json``; ``train_``/``val_`` when present) and a user's Yelp bundle.  Output
directory: ``kb/`` (POIs the release names, every review of them from the bundle),
``dialogues.jsonl`` with ``dialogues.splits/``, and ``mapping_report.json``.  Everything is
computed and checked in memory, written into a staging sibling, then renamed into place: an
error leaves nothing behind.  A placeholder whose review is absent, whose review text checksum
differs or whose offsets do not give the recorded span checksum, and a pointer (a quote's or a
POI card's) whose offsets fall outside its review, is an error naming the file, the dialogue and
the field.  Inconsistencies a release can carry and still be imported (the kinds of
:data:`trace_crs.release.consistency.KINDS`) are counted per file in the report's
``consistency`` section; ``strict`` refuses them (exit 4) before anything is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from trace_crs import DEFAULT_SEED
from trace_crs.atomic import write_json
from trace_crs.dialogues.generate import write_corpus
from trace_crs.dialogues.pools import expanded_pools
from trace_crs.dialogues.release import HydrationError, hydrate_dialogue, text_sha256
from trace_crs.dialogues.schema import SPLITS, check_dialogue
from trace_crs.kb.store import KB, sha256_file, write_kb
from trace_crs.release.bundle import bundle_paths, load_json_text, read_pois, read_reviews
from trace_crs.release.checks import (
    ReleaseFormatError,
    card_lines,
    card_records,
    dataset_lines,
    dialogue_records,
    located,
)
from trace_crs.release.consistency import (
    CARD_KINDS,
    DATASET_KINDS,
    card_findings,
    check_release,
    dialogue_findings,
    out_of_range,
    utf16_hint,
)
from trace_crs.release.mapping import coverage, unconsumed
from trace_crs.release.official import from_official, span_sha256
from trace_crs.release.splits import ignored_split_files, read_splits
from trace_crs.release.staging import check_out, staged

REPORT_FILE, DIALOGUES_FILE, KB_SUBDIR = "mapping_report.json", "dialogues.jsonl", "kb"
PLACEHOLDER_RE = re.compile(r'"\[Q:(\d+)\]" \[(R\d+)\]')  # dialogues/release.py's placeholder form


def _poi_types(
    records: list[dict[str, Any]], cards: list[dict[str, Any]], path: str, cards_path: str
) -> dict[str, str]:
    types: dict[str, str] = {}
    for rec in records:
        ids = list(rec["candidate_poi_ids"]) + [b for t in rec["turns"] for b in t.get("referenced_poi_ids") or []]
        for bid in ids:
            if types.setdefault(bid, rec["scenario"]["poi_type"]) != rec["scenario"]["poi_type"]:
                raise ReleaseFormatError(
                    path, rec["dialogue_id"], "scenario.poi_type", f"POI {bid} is a {types[bid]} in another dialogue"
                )
    for i, card in enumerate(cards):
        if not types.setdefault(card["business_id"], str(card.get("poi_type") or "")):
            raise ReleaseFormatError(
                cards_path,
                None,
                f"[{i}].poi_type",
                f"POI {card['business_id']} has no type " "(not in any dialogue's pool and the card names none)",
            )
    return types


def _check_cities(records: list[dict[str, Any]], kb_pois: dict[str, Any], path: str) -> None:
    """Every candidate of a dialogue lies in its scenario's city (the closed pool is drawn from
    the city x type slice, paper §2.1); a release that says otherwise would get an open set
    without its own candidates."""
    for i, rec in enumerate(records):
        for j, bid in enumerate(rec["candidate_poi_ids"]):
            if kb_pois[bid].city != rec["scenario"]["city"]:
                raise ReleaseFormatError(
                    path,
                    rec["dialogue_id"],
                    f"[{i}].candidate_poi_ids[{j}]",
                    f"POI {bid} is in {kb_pois[bid].city}, the scenario's city is {rec['scenario']['city']}",
                )


def _verify_quotes(rec: dict[str, Any], i: int, kb: KB, path: str) -> int:
    """Each pointer's placeholder is in its turn's text and its review in the bundle (of the POI
    it names); the review-text and span checksums match when the release carries them.  Returns
    how many pointers had no checksum to verify (counted in the report, never assumed)."""
    unverified = 0
    for t, turn in enumerate(rec["turns"]):
        quotes = turn.get("quotes") or []
        placeholders = PLACEHOLDER_RE.findall(turn["text"])
        if sorted(placeholders) != sorted((str(q["q"]), q["label"]) for q in quotes):
            raise ReleaseFormatError(
                path,
                rec["dialogue_id"],
                f"[{i}].turns[{t}].text",
                f"placeholders {placeholders} do not match the turn's quotes "
                f"{[(q['q'], q['label']) for q in quotes]}",
            )
        for k, q in enumerate(quotes):
            where = f"[{i}].turns[{t}].quotes[{k}]"
            review = kb.reviews.get(q["review_id"])
            if review is None:
                raise ReleaseFormatError(
                    path,
                    rec["dialogue_id"],
                    f"{where}.review_id",
                    f"[Q:{q['q']}]: review {q['review_id']} is not in the Yelp bundle",
                )
            if q.get("business_id", review.business_id) != review.business_id:
                raise ReleaseFormatError(
                    path,
                    rec["dialogue_id"],
                    f"{where}.business_id",
                    f"[Q:{q['q']}]: review {q['review_id']} belongs to {review.business_id}",
                )
            if "sha256" in q and text_sha256(review.text) != q["sha256"]:
                raise ReleaseFormatError(
                    path,
                    rec["dialogue_id"],
                    f"{where}.sha256",
                    f"[Q:{q['q']}]: review {q['review_id']} text differs from the release's checksum",
                )
            if not 0 <= q["start"] < q["end"] <= len(review.text) or (
                "span_sha256" in q and span_sha256(review.text[q["start"] : q["end"]]) != q["span_sha256"]
            ):
                raise ReleaseFormatError(
                    path,
                    rec["dialogue_id"],
                    f"{where}.start",
                    f"[Q:{q['q']}]: offsets {q['start']}:{q['end']} of review {q['review_id']} "
                    f"do not give the released span (out of range or span checksum differs){utf16_hint(q, review.text)}",
                )
            unverified += not ("sha256" in q and "span_sha256" in q)
    return unverified


def _verify_cards(cards: list[dict[str, Any]], kb: KB, path: str) -> int:
    n = 0
    for i, card in enumerate(cards):
        for k, p in enumerate(card.get("citations") or []):
            review = kb.reviews.get(p["review_id"])
            where = f"[{i}].citations[{k}]"
            if review is None or review.business_id != card["business_id"]:
                raise ReleaseFormatError(
                    path,
                    None,
                    f"{where}.review_id",
                    f"review {p['review_id']} of POI {card['business_id']} is not in the Yelp bundle",
                )
            if problem := out_of_range(p, review.text):
                raise ReleaseFormatError(path, None, f"{where}.start", problem)
            span = review.text[p["start"] : p["end"]]
            if ("span_sha256" in p and span_sha256(span) != p["span_sha256"]) or ("span" in p and span != p["span"]):
                raise ReleaseFormatError(
                    path,
                    None,
                    f"{where}.start",
                    f"offsets {p['start']}:{p['end']} of review {p['review_id']} do not give the cited span",
                )
            n += 1
    return n


def import_release(
    dataset: str | Path,
    pois: str | Path,
    splits: str | Path,
    yelp_dir: str | Path,
    out: str | Path,
    seed: int = DEFAULT_SEED,
    strict: bool = False,
) -> dict[str, Any]:
    """Map, hydrate, verify and publish (see module docstring); returns the mapping report.
    ``strict``: refuse a release with any inconsistency (:mod:`trace_crs.release.consistency`)."""
    dataset, pois, splits, out = Path(dataset), Path(pois), Path(splits), Path(out)
    inputs = [dataset, pois, splits, *bundle_paths(yelp_dir)]
    check_out(out, inputs, REPORT_FILE)
    data, text = load_json_text(dataset)
    records = dialogue_records(data, str(dataset), text)
    lines = {str(dataset): dataset_lines(data, text)}
    data, text = load_json_text(pois)
    cards = card_records(data, str(pois), text)
    lines[str(pois)] = card_lines(data, text)
    del data, text
    with located(lines):  # every error below names the line of its field
        split_of = read_splits(splits, {r["dialogue_id"] for r in records})
        types = _poi_types(records, cards, str(dataset), str(pois))
        business_path, review_path = bundle_paths(yelp_dir)
        kb_pois = read_pois(business_path, types)
        for i, rec in enumerate(records):
            for t, turn in enumerate([{"referenced_poi_ids": rec["candidate_poi_ids"]}] + rec["turns"]):
                for bid in turn.get("referenced_poi_ids") or []:
                    if bid not in kb_pois:
                        field = f"[{i}].turns[{t - 1}].referenced_poi_ids" if t else f"[{i}].candidate_poi_ids"
                        raise ReleaseFormatError(
                            str(dataset),
                            rec["dialogue_id"],
                            field,
                            f"POI {bid} is not in the Yelp bundle ({business_path.name})",
                        )
        _check_cities(records, kb_pois, str(dataset))
        for i, card in enumerate(cards):
            if card["business_id"] not in kb_pois:
                raise ReleaseFormatError(
                    str(pois),
                    None,
                    f"[{i}].business_id",
                    f"POI {card['business_id']} is not in the Yelp bundle ({business_path.name})",
                )
        kb = KB(pois=kb_pois, reviews=read_reviews(review_path, set(kb_pois)))
        dialogues, unverified = [], 0
        for i, rec in enumerate(records):
            unverified += _verify_quotes(rec, i, kb, str(dataset))
            ours = from_official(rec, split_of.get(rec["dialogue_id"], "train"))
            for turn in ours["turns"]:  # a pointer without a text checksum was range-checked above
                for c in turn["citations"]:
                    c["sha256"] = c["sha256"] or text_sha256(kb.reviews[c["review_id"]].text)
            try:
                dialogues.append(hydrate_dialogue(ours, kb))
            except HydrationError as exc:
                raise ReleaseFormatError(str(dataset), rec["dialogue_id"], f"[{i}].turns", str(exc)) from None
        n_pointers = _verify_cards(cards, kb, str(pois))

        def review_text(rid: str) -> str | None:
            return kb.reviews[rid].text if rid in kb.reviews else None

        consistency = check_release(
            [
                (dataset, "dialogue", DATASET_KINDS, dialogue_findings(records, review_text)),
                (pois, "POI card", CARD_KINDS, card_findings(cards, review_text)),
            ],
            strict,
        )
        with staged(out) as staging:
            manifest = write_kb(
                list(kb.pois.values()),
                list(kb.reviews.values()),
                staging / KB_SUBDIR,
                {
                    "source": "release",
                    "seed": seed,
                    "inputs": {
                        p.name: sha256_file(p)
                        for p in [*inputs, *sorted(splits.glob("*_dialogue_ids.json"))]
                        if p.is_file()
                    },
                },
            )
            kb_sha = manifest["files"]["pois.jsonl"]["sha256"]
            for k, (d, _rec) in enumerate(zip(dialogues, records, strict=False)):
                sc = d["scenario"]
                open_ids = kb.pois_in(sc["city"], sc["poi_type"])
                d["open_set_poi_ids"] = list(open_ids)
                d["expanded_pool_poi_ids"] = expanded_pools(
                    open_ids, d["candidate_poi_ids"], np.random.default_rng([seed, k])
                )
                d["metadata"]["kb_sha256"] = kb_sha
                check_dialogue(d, str(dataset), lines[str(dataset)](f"[{k}]"))
            write_corpus(dialogues, staging / DIALOGUES_FILE)
            report = {
                "counts": {
                    "dialogues": len(records),
                    "turns": sum(len(r["turns"]) for r in records),
                    "quotes": sum(len(t["citations"]) for d in dialogues for t in d["turns"]),
                    "quotes_without_checksums": unverified,
                    "cards": len(cards),
                    "card_pointers": n_pointers,
                    "pois": len(kb.pois),
                    "reviews": len(kb.reviews),
                    "splits": {s: sum(d["split"] == s for d in dialogues) for s in SPLITS},
                },
                "split_files": sorted(
                    f"{s}_dialogue_ids.json" for s in SPLITS if (splits / f"{s}_dialogue_ids.json").is_file()
                ),
                "ignored_split_dir_files": ignored_split_files(splits),  # the CLI warns about each
                "fields": coverage(records, len(split_of)),
                "unconsumed_release_keys": unconsumed(records),
                "kb_sha256": kb_sha,
                "consistency": consistency,
            }
            write_json(report, staging / REPORT_FILE, indent=2)
        return report
