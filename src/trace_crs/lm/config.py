"""The one LM config block shared by every LLM baseline (paper §5 "Models": the backbone is swapped by one config flag).

``LMConfig`` is the whole backend choice: a litellm ``model`` string, ``api_base``, decoding
parameters, ``num_threads`` and the ranking ``mode``.  Presets reproduce the paper's
settings — "max_tokens=600 for non-reasoning models, and temperature=1.0,
max_tokens=16,000 for gpt-5.4-mini" — plus the offline default ``local``.

``model: local`` means "start the llama.cpp server on ``weights`` and talk to it"; any other
value is passed to litellm unchanged, so setting only ``model: openai/gpt-5.4-mini`` switches
the backbone (the preset's decoding parameters follow the model, see ``resolve_lm_config``).

Ranking ``mode``: ``generative`` (the paper's: the LLM writes the ranked id list),
``logprob`` (each candidate card is scored by log P("yes") to "does this place fit the
request?", see ``lm.ranking``), ``choice`` (LLM Zero-Shot family: the model picks a card's
letter, see ``baselines/choice.py``) or ``auto`` (each baseline's own local layout) — small
local models rank generatively at chance, so ``local`` defaults to ``auto``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trace_crs import DEFAULT_SEED
from trace_crs.config import from_mapping, parse_overrides

LOCAL = "local"
AUTO = "auto"  # lm.mode: each LLM baseline's own local layout (LLMBaseline.auto_mode)
MODES = ("generative", "logprob", "choice", AUTO)  # choice: LLM Zero-Shot family only (baselines/choice.py)
CARDS = ("public", "labelled")
SERVERS = ("trace", "llama_cpp")
SLOT_KV = ("private", "shared")  # the slots' KV layouts (lm.batch_engine): cells per slot, or one shared cache
DRAFTS = ("none", "prompt-lookup")  # speculative drafts of the local worker (lm.prompt_lookup)


@dataclass(frozen=True)
class LMConfig:
    """One LM backend; every field can be set from YAML or ``--set lm.<field>=...``."""

    preset: str = "local"
    model: str = LOCAL  # litellm model string, or "local" for the llama.cpp server
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 600
    num_threads: int = 1  # unused, kept for old configs: the run config's ``concurrency`` sets it
    mode: str = AUTO  # one of MODES
    weights: str = "qwen2.5-coder-1.5b-instruct-q4_k_m"  # lm.weights key (local only)
    models_dir: str = "models"
    n_ctx: int = 4096
    # llama.cpp CPU threads in all, 0 = auto (``default_threads()``: the cores free when the
    # servers start), shared by ``servers`` processes, 0 = auto (see ``server_plan``).  Not part
    # of the LM cache key; 0 keeps config.yaml independent of the machine's load.
    n_threads: int = 0
    servers: int = 0
    # parallel slots per server process (lm.batch_engine: continuous batching, one llama_decode per
    # step for all active requests); 0 = off (one request at a time per process).  With slots and
    # servers 0, one process gets all the threads.  Not part of the LM cache key.
    slots: int = 0
    # the slots' KV layout (SLOT_KV, lm.batch_engine): "private" = cells per slot, replies as the
    # one-sequence worker's; "shared" = one cache with prefix copies between slots (the judge's
    # factor calls read the conversation once; concurrent replies can differ in a greedy token).
    slot_kv: str = "private"
    # the local server program: "trace" = trace_crs.lm.llama_worker (log-prob calls without
    # logits_all), "llama_cpp" = llama-cpp-python's own server with logits_all (the reference;
    # same answers, slower).  Not part of the LM cache key.
    server: str = "trace"
    # Speculative decoding on the local worker (lm.prompt_lookup; README "Local model settings"):
    # "prompt-lookup" drafts up to ``draft_tokens`` tokens from an earlier match of the last
    # ``draft_ngram`` tokens in the context and verifies them in one forward pass (greedy: the
    # kept tokens are the ones the model picks).  A server setting, never part of a request, so
    # not part of the LM cache key; "none" by default (README "Measured here" has the ratio).
    draft: str = "none"
    draft_tokens: int = 5
    draft_ngram: int = 3
    # Local-model decoding guards (README "Local model settings"; never applied to API models):
    # the request stops at DSPy's end marker "[[ ## completed ## ]]", and the Trace worker stops a
    # reply once its last ``repeat_ngram`` tokens have occurred 3 times (0 = off).
    repeat_ngram: int = 24
    timeout_s: float = 300.0
    retries: int = 3  # attempts after the first, with exponential backoff
    backoff_s: float = 1.0
    # transient endpoint faults (429 / 5xx / timeout / reset / garbage body): retries of the same
    # request with jittered exponential backoff capped at backoff_max_s (lm.faults)
    http_retries: int = 8
    backoff_max_s: float = 30.0
    cache_dir: str = "~/.cache/trace-crs/lm"  # outside the work tree: survives a fresh clone
    seed: int = DEFAULT_SEED
    # What an LLM baseline's POI card shows: "public" = name, categories, stars, price and review
    # text (what a deployed system sees); "labelled" adds the generator's facet labels (ablation).
    cards: str = "public"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"lm.mode: expected one of {MODES}, got {self.mode!r}")
        if self.server not in SERVERS:
            raise ValueError(f"lm.server: expected one of {SERVERS}, got {self.server!r}")
        if self.slot_kv not in SLOT_KV:
            raise ValueError(f"lm.slot_kv: expected one of {SLOT_KV}, got {self.slot_kv!r}")
        if self.draft not in DRAFTS:
            raise ValueError(f"lm.draft: expected one of {DRAFTS}, got {self.draft!r}")
        if self.draft_tokens < 1 or self.draft_ngram < 1:
            raise ValueError(f"lm.draft_tokens, lm.draft_ngram: expected integers >= 1: {self}")
        if self.draft != "none" and self.slots:
            raise ValueError("lm.draft: the parallel slots (lm.slots > 0) decode without drafts; set one of them")
        if self.cards not in CARDS:
            raise ValueError(f"lm.cards: expected one of {CARDS}, got {self.cards!r}")
        if self.max_tokens < 1 or self.num_threads < 1 or self.retries < 0 or self.http_retries < 0:
            raise ValueError(f"lm config: max_tokens, num_threads must be >= 1 and retries, http_retries >= 0: {self}")
        if self.repeat_ngram < 0:
            raise ValueError(f"lm.repeat_ngram: expected an integer >= 0 (0 = off), got {self.repeat_ngram!r}")
        if self.n_threads < 0 or self.servers < 0 or self.slots < 0:
            raise ValueError(f"lm config: n_threads, servers and slots must be >= 0 (0 = auto/off): {self}")
        if self.backoff_s < 0 or self.backoff_max_s < 0:
            raise ValueError(f"lm config: backoff_s and backoff_max_s must be >= 0: {self}")

    @property
    def draft_settings(self) -> tuple[str, int, int]:
        """``(draft, draft_tokens, draft_ngram)``: what the local servers are started with."""
        return (self.draft, self.draft_tokens, self.draft_ngram)

    @property
    def is_local(self) -> bool:
        return self.model == LOCAL


# the servers' draft settings when none are configured (LMConfig's defaults)
NO_DRAFT: tuple[str, int, int] = LMConfig().draft_settings


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's core count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def load_average() -> float:
    """The 1-minute load average (0.0 where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return 0.0


def default_threads() -> int:
    """``TRACE_LM_THREADS`` (a positive integer) if set, else the cores not busy right now:
    usable cores minus the 1-minute load average, rounded, clamped to [1, cores] — an idle
    2-core machine gets 2 threads, one busy with other work 1.  (More llama.cpp threads than
    free cores collapse into spin-waits.)"""
    raw = os.environ.get("TRACE_LM_THREADS")
    if raw is not None:
        if not raw.isdigit() or int(raw) < 1:
            raise ValueError(f"environment variable TRACE_LM_THREADS: expected a positive integer, got {raw!r}")
        return int(raw)
    cores = usable_cores()
    return max(1, min(cores, round(cores - load_average())))


def local_concurrency(n_threads: int = 0, servers: int = 0, slots: int = 0) -> int:
    """Requests the local backend answers at once: ``slots`` per process when batching (one
    process unless ``servers`` says otherwise), else one per process of :func:`server_plan`."""
    if slots:
        return (servers or 1) * slots
    return server_plan(n_threads, servers)[0]


def server_plan(n_threads: int = 0, servers: int = 0) -> tuple[int, int]:
    """``(server processes, threads each)`` for the local backend (several single-thread servers: a faster local path on few cores).

    ``n_threads`` threads in all (0 = :func:`default_threads`) over ``servers`` processes
    (0 = one per thread: llama-cpp-python's server runs one request at a time, so one
    1-thread server per free core serves that many dialogues at once).  Each server gets at
    least one thread.
    """
    total = n_threads or default_threads()
    count = servers or total
    return count, max(1, total // count)


def local_plan(cfg: LMConfig) -> tuple[int, int]:
    """``(server processes, threads each)`` the local backend starts for ``cfg`` (one server when
    it runs parallel slots and names no server count)."""
    return server_plan(cfg.n_threads, cfg.servers or (1 if cfg.slots else 0))


PRESETS: dict[str, dict[str, Any]] = {
    # Offline default: llama.cpp server, greedy decoding, each baseline's local ranking layout.
    "local": {"model": LOCAL, "temperature": 0.0, "max_tokens": 600, "mode": AUTO},
    # Paper §5: gpt-5.4-mini via DSPy, temperature 1.0, max_tokens 16,000.
    "gpt-5.4-mini": {"model": "openai/gpt-5.4-mini", "temperature": 1.0, "max_tokens": 16000, "mode": "generative"},
    # Paper §5: any non-reasoning API model (e.g. the cross-family backbones), max_tokens 600.
    "api": {"model": "openai/gpt-4o-mini", "temperature": 1.0, "max_tokens": 600, "mode": "generative"},
}
# Which preset a bare ``model`` value implies when the user sets only the model.
MODEL_PRESETS: dict[str, str] = {LOCAL: "local", "openai/gpt-5.4-mini": "gpt-5.4-mini"}


def resolve_lm_config(
    data: dict[str, Any] | None = None, overrides: list[str] | None = None, source: str = "<lm config>"
) -> LMConfig:
    """Merge preset ← mapping ← ``key=value`` overrides into an :class:`LMConfig`.

    The preset is ``data["preset"]`` if given, else implied by ``model`` (``local`` →
    ``local``; ``openai/gpt-5.4-mini`` → ``gpt-5.4-mini``; any other non-local model →
    ``api``), else ``local``.  Explicit keys always win over the preset.
    """
    merged = dict(data or {})
    merged.update(parse_overrides(overrides))
    if "preset" in merged:
        preset = merged["preset"]
    elif "model" in merged:
        preset = MODEL_PRESETS.get(merged["model"], "api")
    else:
        preset = "local"
    if preset not in PRESETS:
        raise ValueError(f"{source}: unknown lm preset {preset!r}; known: {sorted(PRESETS)}")
    resolved = {**PRESETS[preset], **merged, "preset": preset}
    return from_mapping(LMConfig, resolved, source)


def lm_config_from_yaml(path: str | Path, overrides: list[str] | None = None) -> LMConfig:
    """Read the ``lm:`` block (or a bare mapping) of a YAML file."""
    import yaml

    loaded = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping at top level")
    block = loaded.get("lm", loaded)
    if not isinstance(block, dict):
        raise ValueError(f"{path}: key 'lm': expected a mapping")
    return resolve_lm_config(block, overrides, str(path))


def as_dict(cfg: LMConfig) -> dict[str, Any]:
    """Plain mapping of ``cfg`` (for run manifests)."""
    return dataclasses.asdict(cfg)


def requests_at_once(*lms: Any) -> int:
    """Calls to send at once to ``lms`` by default: one per local server process of their plan
    (each thread keeps its own server and KV cache), 1 for an API model or for several LMs."""
    cfgs = [getattr(lm, "trace_config", None) for lm in lms]
    if len({id(lm) for lm in lms}) != 1 or cfgs[0] is None or not cfgs[0].is_local:
        return 1
    return local_plan(cfgs[0])[0]
