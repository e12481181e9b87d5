"""Typed, frozen run configurations: one YAML per table cell, ``--set key=value`` overrides.

``load_config(Cls, path, overrides)`` reads a YAML mapping into the frozen dataclass
``Cls``; unknown keys are an error naming the file and key, and override values are parsed
as YAML scalars (``--set pool=16 --set fuzzy_threshold=0.9``) and then cast to the field's
declared type.  ``signature(...)`` renders the provenance string every score file and table
carries (``trace|v:0.1.0|kb:1a2b3c4d|pool:8|fuzzy:0.80|nli:none|seed:42``).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from trace_crs import DEFAULT_SEED, __version__
from trace_crs.errors import UsageError

T = TypeVar("T")


class ConfigError(UsageError):
    """A configuration file or override is invalid; the message names the source and key (exit 2)."""


def parse_overrides(pairs: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {pair!r}: expected key=value")
        out[key.strip()] = yaml.safe_load(raw)
    return out


def _cast(cls: type, name: str, value: Any, source: str) -> Any:
    hints = typing.get_type_hints(cls)
    want = hints[name]
    origin = typing.get_origin(want)
    if value is None or want is Any:
        return value
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(want) if a is not type(None)]
        want = args[0] if len(args) == 1 else Any
        if want is Any:
            return value
        origin = typing.get_origin(want)
    if origin in (tuple, list):
        seq = value if isinstance(value, (list, tuple)) else [value]
        return tuple(seq) if origin is tuple else list(seq)
    if want is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{source}: key '{name}': expected true/false, got {value!r}")
        return value
    if want is int:  # exactly an integer: 2.7, true or .inf are errors, not 2, 1 or an OverflowError
        if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
            raise ConfigError(f"{source}: key '{name}': expected an integer, got {value!r}")
        return int(value)
    if want is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ConfigError(f"{source}: key '{name}': expected a number, got {value!r}")
        return float(value)
    if want is str:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ConfigError(f"{source}: key '{name}': expected a string, got {value!r}")
        return str(value)
    return value


def from_mapping(cls: type[T], data: dict[str, Any], source: str = "<mapping>") -> T:
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]  # T: a config dataclass
    unknown = sorted(set(data) - fields)
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {unknown}; known: {sorted(fields)}")
    return cls(**{k: _cast(cls, k, v, source) for k, v in data.items()})


def config_sections(path: str | Path | None) -> set[str]:
    """The top-level keys of YAML file ``path`` that hold a mapping — the command sections of a
    project config (``evaluate:``, ``score:``, ``converse:``); empty when there is no such file."""
    if not path or not Path(path).is_file():
        return set()
    loaded = yaml.safe_load(Path(path).read_text())
    return {k for k, v in loaded.items() if isinstance(v, dict)} if isinstance(loaded, dict) else set()


def load_config(
    cls: type[T], path: str | Path | None = None, overrides: list[str] | None = None, section: str | None = None
) -> T:
    """Load ``path`` (YAML mapping, optional) into ``cls`` and apply ``key=value`` overrides.

    A sectioned file — the project's ``configs/<profile>/<run>.yaml``, one mapping per command —
    is read from its ``section`` mapping (e.g. ``evaluate:``), whose ``set:`` list holds
    ``key=value`` overrides applied before the command line's."""
    data: dict[str, Any] = {}
    source = str(path) if path else "<defaults>"
    if path:
        if not Path(path).is_file():
            raise ConfigError(f"--config {path}: file not found")
        try:
            loaded = yaml.safe_load(Path(path).read_text()) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{source}: not valid YAML: {str(exc)[:160]}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{source}: expected a mapping at top level")
        if section and isinstance(loaded.get(section), dict):
            loaded = dict(loaded[section])
            sets = loaded.pop("set", None) or []
            overrides = [*(sets if isinstance(sets, list) else [sets]), *(overrides or [])]
            source = f"{source} ({section}:)"
        data.update(loaded)
    for key, value in parse_overrides(overrides).items():
        head, dot, rest = key.partition(".")
        if dot:  # ``--set lm.weights=x`` sets one key of a mapping-valued field
            nested = dict(data.get(head) or {})
            nested[rest] = value
            data[head] = nested
        else:
            data[key] = value
    return from_mapping(cls, data, source)


# Candidate pools of the paper: the closed 8, the expanded 16 and 32, the open city set (§2.3, App. E).
POOLS: tuple[str, ...] = ("closed", "16", "32", "open")


@dataclass(frozen=True)
class ScoreConfig:
    """Scoring parameters (the ``trace-crs score`` flags, ARCHITECTURE §5; the paper's values as defaults);
    ``entailment``/``judge`` name the backends.  The one source of every threshold: metric
    functions, sweeps, the CLI and the dialogue validator take their defaults from here."""

    pool: str = "closed"
    fuzzy_threshold: float = 0.80
    cd_gate: float = 0.05
    pc_window: int = 80
    pc_floor: float = 0.5
    spatial_km: float = 2.0
    entailment: str = "none"
    entail_threshold: float = 0.5
    judge: str = "none"
    judge_n: int = 200
    strict: bool = False
    seed: int = DEFAULT_SEED
    # Readings of App. J definitions the paper's text allows; the headline tables use the
    # defaults (README "What we chose"), the Deviations page scores every value.
    ranked_list: str = "full"  # full | response (metrics.recommendation.RANKED_LISTS)
    t2r_count: str = "recommend"  # recommend | system | all (metrics.dialogue.T2R_COUNTS)
    text_reference: str = "turn"  # turn | unquoted | quotes (metrics.text.TEXT_REFERENCES)

    def __post_init__(self) -> None:
        checks = {
            "pool": self.pool in POOLS,
            "fuzzy_threshold": 0.0 < self.fuzzy_threshold <= 1.0,
            "cd_gate": 0.0 <= self.cd_gate <= 1.0,
            "pc_window": self.pc_window >= 0,
            "pc_floor": 0.0 <= self.pc_floor <= 1.0,
            "spatial_km": self.spatial_km > 0,
            "entail_threshold": 0.0 <= self.entail_threshold <= 1.0,
            "judge_n": self.judge_n >= 0,
            "ranked_list": self.ranked_list in ("full", "response"),
            "t2r_count": self.t2r_count in ("recommend", "system", "all"),
            "text_reference": self.text_reference in ("turn", "unquoted", "quotes"),
        }
        rules = {
            "pool": f"one of {', '.join(POOLS)}",
            "fuzzy_threshold": "in (0, 1]",
            "cd_gate": "in [0, 1]",
            "pc_window": ">= 0",
            "pc_floor": "in [0, 1]",
            "spatial_km": "> 0",
            "entail_threshold": "in [0, 1]",
            "judge_n": ">= 0",
            "ranked_list": "one of full, response",
            "t2r_count": "one of recommend, system, all",
            "text_reference": "one of turn, unquoted, quotes",
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            raise ConfigError(f"score config: {bad[0]}={getattr(self, bad[0])!r} must be {rules[bad[0]]}")


def signature(
    kb_sha256: str = "",
    pool: str | int = "closed",
    fuzzy: float = ScoreConfig.fuzzy_threshold,
    nli: str = "none",
    seed: int = DEFAULT_SEED,
    **extra: Any,
) -> str:
    """The provenance signature string (STYLE: Provenance)."""
    parts = [
        f"trace|v:{__version__}",
        f"kb:{kb_sha256[:8] or 'none'}",
        f"pool:{pool}",
        f"fuzzy:{fuzzy:.2f}",
        f"nli:{nli}",
        f"seed:{seed}",
    ]
    parts += [f"{k}:{v}" for k, v in sorted(extra.items())]
    return "|".join(parts)
