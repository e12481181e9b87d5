"""Do replies depend on the batch they were decoded in?  (Issue "offline LLM speed" item 4:
records must not depend on the slot count; not a timed test.)

The same greedy requests (the log-prob ranking calls and short generations of
``tests/lm/test_batch_engine.py``, ) go to the
one-sequence worker one at a time (the reference) and to the batched worker with ``--slots``
slots in each KV layout of ``--slot-kv`` (``lm.config.SLOT_KV``), sent one at a time and then by ``--slots`` concurrent clients, ``--repeats`` times.
Reported: how many replies (message, finish reason, logprobs, usage) differ from the reference
in each arm, and for log-prob replies the largest absolute difference of the "yes" log-prob.

    python bench/bench_batch_slots.py --weights smollm2-135m-instruct-q4_1 --out results/bench/batch_slots.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lm.test_batch_engine import _bodies, _post  # noqa: E402  (the test's requests, one definition)

from trace_crs.lm.config import SLOT_KV  # noqa: E402
from trace_crs.lm.server import LlamaServer  # noqa: E402
from trace_crs.lm.weights import verified_path  # noqa: E402


def replies(model: Path, slots: int, bodies: list[dict], clients: int, threads: int, kv: str = "private") -> list[dict]:
    with LlamaServer(model, "m", 2048, threads, slots=slots, slot_kv=kv) as srv, ThreadPoolExecutor(clients) as pool:
        return list(pool.map(lambda b: _post(srv.api_base, b), bodies))


def key(o: dict) -> tuple:
    c = o["choices"][0]
    return json.dumps([c["message"], c["finish_reason"], c.get("logprobs"), o["usage"]], sort_keys=True)


def top_logprob(o: dict) -> float | None:
    lp = (o["choices"][0].get("logprobs") or {}).get("content") or []
    return lp[0]["logprob"] if lp else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--weights", default="smollm2-135m-instruct-q4_1")
    p.add_argument("--models", default=str(ROOT / "models"))
    p.add_argument("--slots", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--slot-kv", nargs="+", default=list(SLOT_KV), help="KV layouts of the slots to compare")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    model = verified_path(args.weights, args.models)
    bodies = _bodies()
    load0 = os.getloadavg()[0]
    ref = replies(model, 0, bodies, 1, args.threads)
    arms: dict[str, list[dict]] = {}
    for _ in range(args.repeats):
        for kv, (mode, clients) in (
            (k, m) for k in args.slot_kv for m in (("one_at_a_time", 1), ("concurrent", args.slots))
        ):
            name = f"slots{args.slots}_{kv}_{mode}"
            got = replies(model, args.slots, bodies, clients, args.threads, kv)
            diffs = [i for i, (a, b) in enumerate(zip(ref, got, strict=True)) if key(a) != key(b)]
            lp = [
                abs(x - y)
                for a, b in zip(ref, got, strict=True)
                if (x := top_logprob(a)) is not None and (y := top_logprob(b)) is not None
            ]
            text = sum(a["choices"][0]["message"] != b["choices"][0]["message"] for a, b in zip(ref, got, strict=True))
            arms.setdefault(name, []).append(
                {
                    "differing_replies": len(diffs),
                    "differing_messages": text,
                    "max_abs_logprob_diff": max(lp, default=0.0),
                    "differing_index": diffs,
                }
            )
    result = {
        "weights": args.weights,
        "slots": args.slots,
        "threads": args.threads,
        "requests": len(bodies),
        "repeats": args.repeats,
        "load_1min_start": round(load0, 2),
        "load_1min_end": round(os.getloadavg()[0], 2),
        "date": time.strftime("%Y-%m-%d"),
        "arms": arms,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
