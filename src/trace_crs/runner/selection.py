"""What a run evaluates, shared by ``trace-crs evaluate`` (:class:`trace_crs.runner.run.RunConfig`)
and ``trace-crs converse`` (:class:`trace_crs.live.run.LiveConfig`): the inputs, the baselines,
the candidate pool, the seeded subset, the open-set prefilter and the LM block — with one set
of checks and one resolution into the ``config.yaml`` a run directory is claimed with."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trace_crs import DEFAULT_SEED, __version__
from trace_crs.baselines import registry
from trace_crs.baselines.registry import resolve
from trace_crs.config import POOLS
from trace_crs.errors import UsageError
from trace_crs.kb.store import POIS_FILE, REVIEWS_FILE, sha256_file

Rules = dict[str, tuple[bool, str]]


@dataclass(frozen=True)
class Selection:
    kb: str = ""
    dialogues: str = ""
    baselines: str = "all"
    pool: str = "closed"
    subset: int | None = None
    seed: int = DEFAULT_SEED
    prefilter: str = "tfidf"  # open-set prefilter of LLM Zero-Shot / RAG-Citation (Table 25)
    lm: dict[str, Any] | None = None  # LM block for LLM baselines (``--set lm.weights=…``), see lm.config

    def rules(self) -> Rules:
        """``{field: (valid, what it must be)}`` for the shared fields; subclasses add theirs."""
        from trace_crs.baselines.llm_zero_shot import PREFILTERS

        return {
            "pool": (self.pool in POOLS, f"one of {', '.join(POOLS)}"),
            "prefilter": (self.prefilter in PREFILTERS, f"one of {', '.join(PREFILTERS)}"),
            "subset": (self.subset is None or self.subset >= 1, ">= 1 (or unset for every dialogue)"),
            "seed": (self.seed >= 0, ">= 0"),
            "lm": (self.lm is None or isinstance(self.lm, dict), "a mapping of lm.* keys"),
        }

    def check(self, what: str) -> None:
        """Raise :class:`UsageError` naming the first invalid field (before anything is written)."""
        for key, (ok, rule) in self.rules().items():
            if not ok:
                raise UsageError(f"{what}: {key}={getattr(self, key)!r} must be {rule}")

    def resolved(
        self, needs_lm: Callable[[list[str]], bool], source: str, exclude: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """The config as written to ``config.yaml``: every field but ``exclude``, baseline names
        resolved, the LM block resolved when ``needs_lm(names)``, inputs identified by SHA256 —
        every input file a run depends on (the KB's POIs *and* reviews, the dialogues), so a
        resumed run never reuses chunks computed from other inputs."""
        for label, path in (
            ("--kb", Path(self.kb) / POIS_FILE),
            ("--kb", Path(self.kb) / REVIEWS_FILE),
            ("--dialogues", Path(self.dialogues)),
        ):
            if not path.is_file():
                raise FileNotFoundError(f"{label}: {path} not found")
        names = resolve(self.baselines)
        lm = None
        if needs_lm(names):
            from trace_crs.lm.config import resolve_lm_config

            lm = dataclasses.asdict(resolve_lm_config(self.lm, source=source))
        settings = {k: v for k, v in dataclasses.asdict(self).items() if k not in exclude}
        return {
            **settings,
            "baselines": names,
            "lm": lm,
            "trace_version": __version__,
            "kb_sha256": sha256_file(Path(self.kb) / POIS_FILE),
            "kb_reviews_sha256": sha256_file(Path(self.kb) / REVIEWS_FILE),
            "dialogues_sha256": sha256_file(self.dialogues),
        }


def uses_llm(names: list[str]) -> bool:
    """Whether any of the baselines calls an LM."""
    return any(registry.uses_llm(n) for n in names)
