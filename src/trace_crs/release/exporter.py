"""Export our corpus in the official release layout (paper §2.1 Release, Appendix H).

``--out`` receives ``crs_dataset.json`` (a JSON array, one record per dialogue, quotes as
``[Q:N]`` placeholders with pointers), ``poi_knowledge_base.json`` (one card per POI a dialogue
names: the POI metadata of §2.1's carve-out and the cited pointers ``(business_id, R#, review
id, offsets, span checksum)`` — no span text, so even a Yelp-built corpus exports without Yelp
text; every KB POI has a card, cited or not), ``splits/<split>_dialogue_ids.json`` and ``export_report.json`` naming the fields the
layout does not carry.  ``bundle`` (optional) also writes a synthetic KB as a Yelp-format bundle
for the import side, in one commit with ``--out`` (:func:`trace_crs.atomic.commit_files`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trace_crs.atomic import clean_stale, commit_files, write_json, write_text
from trace_crs.dialogues.schema import SPLITS, load_dialogues
from trace_crs.errors import UsageError
from trace_crs.kb.store import KB, dump_jsonl, load_kb, sha256_file
from trace_crs.kb.yelp import BUSINESS_FILE, REVIEW_FILE
from trace_crs.release.bundle import bundle_records
from trace_crs.release.official import FIELDS, to_official
from trace_crs.release.staging import check_out, staged

DATASET_FILE, CARDS_FILE, SPLITS_DIR, EXPORT_REPORT = (
    "crs_dataset.json",
    "poi_knowledge_base.json",
    "splits",
    "export_report.json",
)


def poi_cards(records: list[dict[str, Any]], kb: KB) -> list[dict[str, Any]]:
    """One card per KB POI (so an import rebuilds the same POI set and open sets), with the
    pointers the records cite."""
    cited: dict[str, set[tuple[str, str, int, int, str]]] = {bid: set() for bid in kb.pois}
    for rec in records:
        for bid in rec["candidate_poi_ids"]:
            cited.setdefault(bid, set())
        for t in rec["turns"]:
            for bid in t["referenced_poi_ids"]:
                cited.setdefault(bid, set())
            for q in t["quotes"]:
                cited.setdefault(q["business_id"], set()).add(
                    (q["label"], q["review_id"], q["start"], q["end"], q["span_sha256"])
                )
    cards = []
    for bid in sorted(cited):
        p = kb.pois[bid]
        cards.append(
            {
                "business_id": bid,
                "name": p.name,
                "address": p.address,
                "city": p.city,
                "latitude": p.latitude,
                "longitude": p.longitude,
                "categories": p.categories,
                "stars": p.stars,
                "price": p.price,
                "poi_type": p.poi_type,
                "citations": [
                    {"label": lab, "review_id": rid, "start": s, "end": e, "span_sha256": h}
                    for lab, rid, s, e, h in sorted(cited[bid])
                ],
            }
        )
    return cards


def export_release(
    kb_dir: str | Path, dialogues: str | Path, out: str | Path, bundle: str | Path | None = None
) -> dict[str, Any]:
    """Write the release layout of ``dialogues`` (see module docstring); returns the report."""
    kb_dir, dialogues, out = Path(kb_dir), Path(dialogues), Path(out)
    check_out(out, [kb_dir, dialogues], EXPORT_REPORT)
    if bundle is not None and (
        out.resolve() == Path(bundle).resolve() or out.resolve() in Path(bundle).resolve().parents
    ):
        raise UsageError(f"--yelp-bundle {bundle} is inside --out {out}, which the export replaces as a whole")
    kb = load_kb(kb_dir)
    corpus = list(load_dialogues(dialogues))  # an empty corpus is a data error (import refuses an empty release)
    records = [to_official(d, kb) for d in corpus]
    if bundle is None:
        with staged(out) as staging:
            return _write_layout(staging, records, corpus, kb, dialogues)
    # the bundle's two files and the layout directory are one commit (trace_crs.atomic.commit_files):
    # a killed export never leaves a bundle mixing new and old files, nor one beside an old layout
    business, reviews = bundle_records(kb)
    bundle = Path(bundle)
    report: dict[str, Any] = {}

    def layout(tmp: Path) -> None:
        tmp.mkdir(parents=True)
        report.update(_write_layout(tmp, records, corpus, kb, dialogues))

    clean_stale(out)  # a killed earlier export's staging copy
    commit_files(
        {
            out: layout,
            bundle / BUSINESS_FILE: lambda t: dump_jsonl(business, t),
            bundle / REVIEW_FILE: lambda t: dump_jsonl(reviews, t),
        },
        marker=bundle / REVIEW_FILE,
    )
    return report


def _write_layout(
    directory: Path, records: list[dict[str, Any]], corpus: list[Any], kb: KB, dialogues: Path
) -> dict[str, Any]:
    """Fill ``directory`` with the layout files (module docstring); returns the report."""
    write_text(directory / DATASET_FILE, json.dumps(records, sort_keys=True, ensure_ascii=False, indent=1) + "\n")
    write_json(poi_cards(records, kb), directory / CARDS_FILE, indent=1)
    for split in SPLITS:
        ids = sorted(d["dialogue_id"] for d in corpus if d["split"] == split)
        write_json(ids, directory / SPLITS_DIR / f"{split}_dialogue_ids.json", indent=0)
    report = {
        "counts": {"dialogues": len(records), "quotes": sum(len(t["quotes"]) for r in records for t in r["turns"])},
        "inputs": {"kb": kb.sha256, "dialogues": sha256_file(dialogues)},
        "not_exported": [f for f in FIELDS if f["status"] in ("absent", "kb")],
        "dialogues_with_unsolvable": sum("unsolvable" in d for d in corpus),
    }
    write_json(report, directory / EXPORT_REPORT, indent=2)
    return report
