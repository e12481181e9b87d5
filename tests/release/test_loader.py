"""`datasets.load_dataset("json", ...)` reads an exported corpus offline, with the features the
dataset card (DATASET_CARD.md) documents."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trace_crs.cli import main

datasets = pytest.importorskip("datasets")
CARD = Path(__file__).resolve().parents[2] / "DATASET_CARD.md"


def card_features(config: str) -> dict:
    """``{name: dtype or nested dict}`` of one config of the card's ``dataset_info``."""
    header = yaml.safe_load(CARD.read_text().split("---")[1])
    spec = next(c for c in header["dataset_info"] if c["config_name"] == config)["features"]

    def tree(items: list) -> dict:
        out = {}
        for f in items:
            inner = f.get("struct", f.get("list", f.get("dtype")))
            out[f["name"]] = tree(inner) if isinstance(inner, list) else inner
        return out
    return tree(spec)


def loaded_features(features) -> dict:
    """The same tree from a loaded ``datasets.Features`` (lists unwrapped; all-null columns
    are typed ``null`` by inference and compared by name only)."""
    def walk(f):
        while hasattr(f, "feature"):   # List / Sequence
            f = f.feature
        if isinstance(f, dict):
            return {k: walk(v) for k, v in f.items()}
        return f.dtype
    return walk(dict(features))


def _same(card: dict, loaded: dict, path: str = "") -> None:
    assert set(card) == set(loaded), f"{path or '<top>'}: card {sorted(card)} vs data {sorted(loaded)}"
    for k, v in card.items():
        if isinstance(v, dict):
            _same(v, loaded[k], f"{path}.{k}")
        elif loaded[k] != "null":
            assert loaded[k] == v, f"{path}.{k}: card {v} vs data {loaded[k]}"


def test_datasets_loads_the_export_with_the_card_features(smoke_corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    kb, dialogues = smoke_corpus
    out = tmp_path / "release"
    assert main(["--quiet", "release", "export", "--kb", str(kb), "--dialogues", str(dialogues), "--out", str(out)]) == 0
    ds = datasets.load_dataset("json", data_files={"test": str(out / "crs_dataset.json")},
                               cache_dir=str(tmp_path / "hf"))["test"]
    assert ds.num_rows == 40 and ds[0]["dialogue_id"] == "crs_yelp_00001"
    _same(card_features("dialogues"), loaded_features(ds.features))
    cards = datasets.load_dataset("json", data_files=str(out / "poi_knowledge_base.json"),
                                  cache_dir=str(tmp_path / "hf"))["train"]
    _same(card_features("poi_cards"), loaded_features(cards.features))
