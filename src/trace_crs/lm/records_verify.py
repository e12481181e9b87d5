"""Whether a records directory's records still hold here (``trace-crs lm records verify``;
:mod:`trace_crs.lm.records`; what the directory holds: :mod:`trace_crs.lm.records_stats`).

:func:`verify_records` recomputes a seeded sample of the records of the live LM's model (same
  weights; any llama.cpp build) by sending each recorded request to the live backend again (DSPy
  cache and records bypassed) and reports the share whose reply is identical to the record — the
  text, ``finish_reason`` and log-probabilities of every choice (:func:`reply_of`) — and, for
  each one that differs, the likely reason (:func:`likely_reason`): another llama.cpp build tag,
  other CPU features, another model id, a record made by a local worker whose KV reuse depended on
  the request before it (:func:`history_free`), or, with the same model, build and CPU, a
  decoding that is not deterministic.  Identity is exact (every log-probability digit); for each differing
  reply it also says whether the text and ``finish_reason`` are the same and by how much the
  log-probabilities moved (:func:`closeness`): a KV cache resumed at another token changes the
  last digits of a local model's log-probabilities without changing what it says.  The sample is ``numpy.random.default_rng(seed).choice`` over the
  model's distinct keys in sorted order, so the same records, seed and size draw the same calls.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from trace_crs.errors import UsageError
from trace_crs.lm.records import iter_records, load_response, use_records


class Differing(TypedDict):
    """One sampled record whose recomputed reply differs."""

    key: str
    step: str
    reason: str
    recorded: str
    recomputed: str
    same_text: bool
    max_logprob_diff: float | None


class VerifyReport(TypedDict):
    """What ``trace-crs lm records verify`` prints (JSON)."""

    directory: str
    model: str
    seed: int
    sampled: int
    identical: int
    share_identical: float | None
    reasons: dict[str, int]
    same_text: int
    max_logprob_diff: float | None
    step: str | None
    history_free: dict[str, int]
    differing: list[Differing]
    other_models: dict[str, int]


def split_build(model: str) -> tuple[str, str]:
    """``(model id without the build tag, build tag)`` of a model id (:mod:`trace_crs.lm.build`:
    a non-portable llama.cpp build appends ``+<instruction sets>``; ``""`` is the portable build)."""
    base, plus, tag = model.partition("+")
    return base, plus + tag


def reply_of(response: Any) -> list[dict[str, Any]]:
    """What a call answered, choice by choice: text, ``finish_reason``, log-probabilities."""
    from dspy.clients.legacy_outputs import plain

    body = plain(response) if isinstance(response, dict) else response.model_dump()
    out = []
    for choice in body.get("choices") or ():
        message = choice.get("message") or {}
        out.append(
            {
                "text": message.get("content"),
                "finish_reason": choice.get("finish_reason"),
                "logprobs": choice.get("logprobs"),
            }
        )
    return out


def _top_logprobs(choice: dict[str, Any]) -> list[dict[str, float]]:
    """Per generated token, ``{token: logprob}`` of its listed alternatives (itself included)."""
    content = (choice.get("logprobs") or {}).get("content") or []
    out = []
    for entry in content:
        tops = {str(t.get("token")): float(t.get("logprob")) for t in entry.get("top_logprobs") or ()}
        if entry.get("token") is not None and entry.get("logprob") is not None:
            tops.setdefault(str(entry["token"]), float(entry["logprob"]))
        out.append(tops)
    return out


def closeness(recorded: list[dict[str, Any]], recomputed: list[dict[str, Any]]) -> tuple[bool, float | None]:
    """``(same text and finish_reason in every choice, largest |Δ log-probability| over the tokens
    both replies list at the same position)``; the difference is None without log-probabilities."""
    same = len(recorded) == len(recomputed) and all(
        (a.get("text"), a.get("finish_reason")) == (b.get("text"), b.get("finish_reason"))
        for a, b in zip(recorded, recomputed, strict=False)
    )
    diffs = [
        abs(ta[tok] - tb[tok])
        for a, b in zip(recorded, recomputed, strict=False)
        for ta, tb in zip(_top_logprobs(a), _top_logprobs(b), strict=False)
        for tok in ta.keys() & tb.keys()
    ]
    return same, (round(max(diffs), 6) if diffs else None)


def history_free(response: Any, prompt_tokens: int | None = None) -> bool:
    """Whether a recorded response came from a local worker whose reply does not depend on the
    request before it (:func:`trace_crs.lm.llama_requests.reusable_prefix`): one that reused KV
    rows only in whole blocks (``timings.kv_reuse_block``, since commit 98a1a50) and, when it kept a
    prefix of the ``prompt_tokens``-token prompt, read at least one block after it
    (``timings.prompt_n``; a shorter read could change the logits, fixed in commit 01054f7).
    With ``prompt_tokens`` unknown, a read shorter than a block counts as a kept prefix."""
    body = response.get("body", response) if isinstance(response, dict) else {}
    timings = body.get("timings") if isinstance(body, dict) else None
    if not isinstance(timings, dict) or "kv_reuse_block" not in timings:
        return False
    read, block = timings.get("prompt_n"), timings["kv_reuse_block"]
    if not isinstance(read, int) or not isinstance(block, int):
        return False
    return read >= block or (prompt_tokens is not None and read >= prompt_tokens)


def likely_reason(
    recorded_model: str,
    live_model: str,
    recorded_cpu: str | None,
    live_cpu: str | None,
    recorded_history_free: bool = True,
) -> str:
    """Why a recomputed reply may differ from its record (module docstring)."""
    (rec_base, rec_tag), (live_base, live_tag) = split_build(recorded_model), split_build(live_model)
    if rec_base != live_base:
        return f"another model id (recorded {recorded_model}, here {live_model})"
    if rec_tag != live_tag:
        return f"another llama.cpp build tag (recorded {rec_tag or 'portable'!r}, here {live_tag or 'portable'!r})"
    rec, live = set((recorded_cpu or "").split(",")) - {""}, set((live_cpu or "").split(",")) - {""}
    if rec != live and (rec or live):
        only = sorted(rec - live), sorted(live - rec)
        return f"other CPU features (recorded only {only[0]}, here only {only[1]})"
    if recorded_cpu is None and live_cpu is None:
        return "same model id: the provider's decoding is not deterministic"
    if not recorded_history_free:
        return (
            "same model id, build and CPU features: recorded by a worker whose KV reuse depended on "
            "the request before it (before commit 98a1a50, or a kept prefix followed by less than one "
            "reuse block read, before commit 01054f7)"
        )
    return "same model id, build and CPU features: decoding not deterministic here (threads, batching)"


def _prompt_tokens(record: dict[str, Any]) -> int | None:
    """The recorded request's prompt tokens (the record's usage), if it says."""
    usage = record.get("usage")
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return tokens if isinstance(tokens, int) else None


def _short(reply: list[dict[str, Any]]) -> str:
    return " | ".join(str(c["text"])[:200] for c in reply)


def sample_keys(records: dict[str, dict[str, Any]], n: int, seed: int) -> list[str]:
    """``n`` keys of ``records`` drawn without replacement by ``default_rng(seed)`` from the sorted keys."""
    keys = sorted(records)
    if not keys:
        return []
    picked = np.random.default_rng(seed).choice(len(keys), size=min(n, len(keys)), replace=False)
    return [keys[int(i)] for i in sorted(picked)]


def verify_records(directory: str | Path, lm: Any, n: int, seed: int, step: str | None = None) -> VerifyReport:
    """Recompute ``n`` seeded records of ``lm``'s model (same weights, any build) with ``lm``
    and compare (module docstring); only the records of steps starting with ``step`` when given.
    ``history_free`` counts the sampled records a history-free worker made (:func:`history_free`)
    and how many of them were identical.  ``lm`` is a :class:`~trace_crs.lm.backend.TraceLM`."""
    live_model, live_base = lm.model, split_build(lm.model)[0]
    mine: dict[str, dict[str, Any]] = {}
    others: Counter[str] = Counter()
    for record in iter_records(directory):
        model = str(record.get("model"))
        if split_build(model)[0] != live_base:
            others[model] += 1
        elif step is None or str(record.get("step") or "").startswith(step):
            mine.setdefault(record["key"], record)
    if not mine:
        where = f" of a step starting {step!r}" if step is not None else ""
        raise UsageError(
            f"{directory}: no LM records{where} of {live_base} (records of: {sorted(others) or 'none'}); "
            "choose the model with --config / --set"
        )
    live_cpu = lm._cpu()
    reasons: Counter[str] = Counter()
    differing: list[Differing] = []
    keys = sample_keys(mine, n, seed)
    fresh = {"sampled": 0, "identical": 0}
    for key in keys:
        record = mine[key]
        recorded = reply_of(load_response(record["response"]))
        recomputed = reply_of(_resend(lm, record["request"]))
        made_fresh = history_free(record["response"], _prompt_tokens(record))
        if made_fresh:
            fresh["sampled"] += 1
            fresh["identical"] += recomputed == recorded
        if recomputed == recorded:
            continue
        reason = likely_reason(str(record["model"]), live_model, record.get("cpu"), live_cpu, made_fresh)
        reasons[reason] += 1
        same, moved = closeness(recorded, recomputed)
        differing.append(
            Differing(
                key=key,
                step=str(record.get("step")),
                reason=reason,
                recorded=_short(recorded),
                recomputed=_short(recomputed),
                same_text=same,
                max_logprob_diff=moved,
            )
        )
    identical = len(keys) - len(differing)
    moved_all = [d["max_logprob_diff"] for d in differing if d["max_logprob_diff"] is not None]
    return VerifyReport(
        directory=str(directory),
        model=live_model,
        seed=seed,
        sampled=len(keys),
        identical=identical,
        share_identical=round(identical / len(keys), 4) if keys else None,
        reasons=dict(reasons.most_common()),
        same_text=identical + sum(d["same_text"] for d in differing),
        max_logprob_diff=max(moved_all) if moved_all else (0.0 if keys and not differing else None),
        step=step,
        history_free=fresh,
        differing=differing,
        other_models=dict(sorted(others.items())),
    )


def _resend(lm: Any, request: dict[str, Any]) -> Any:
    """The recorded ``request`` sent to ``lm``'s backend once more: its model, the recorded
    messages and settings, DSPy's cache and the LM records bypassed."""
    kwargs = {k: v for k, v in request.items() if k not in ("model", "prompt", "messages")}
    if lm.endpoints is not None:
        kwargs["api_base"] = lm.endpoints.api_base()
    from trace_crs.lm.ranking import quiet_truncation  # a recorded 1-token call is cut on purpose

    with use_records(None), quiet_truncation():
        response, _ = lm._send(request.get("prompt"), request.get("messages"), {**kwargs, "cache": False})
    return response
