"""The run-wide cost guard of ``trace-crs evaluate --max-cost-usd`` (ARCHITECTURE §4: admission stops before the budget, exit 4).

The budget bounds the run's cost: the ``cost_usd`` of every record of the run directory (the
chunks finished by earlier invocations included) plus what the jobs in flight may still
spend.  Before a (baseline, dialogue) job starts, the guard reserves its expected cost — the
*largest* cost of one dialogue of that baseline seen so far in the run, a conservative
estimate — and refuses the job ("stop") when ``spent + reserved + expected`` would exceed the
budget; until one dialogue of a baseline has finished, its jobs start one at a time
("wait").  A finished job's reservation is replaced by what it actually cost.  Stopping
keeps every complete chunk; re-running with a larger budget resumes.  The bound holds as long
as no dialogue costs more than the costliest seen before it (the first dialogue of a
baseline runs alone, so it can overshoot by at most its own cost).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq


class CostGuard:
    """Admission control against ``budget_usd`` (module docstring)."""

    def __init__(
        self, budget_usd: float, spent_usd: float = 0.0, per_dialogue_max: dict[str, float] | None = None
    ) -> None:
        if budget_usd < 0:
            raise ValueError(f"--max-cost-usd must be >= 0, got {budget_usd}")
        self.budget, self.spent = float(budget_usd), float(spent_usd)
        self.expected: dict[str, float] = dict(per_dialogue_max or {})
        self.reserved: dict[str, list[float]] = {}
        self.lock = threading.Lock()
        self.stopped = False  # set by the runner when admission was refused

    @property
    def in_flight_usd(self) -> float:
        return sum(sum(v) for v in self.reserved.values())

    def admit(self, name: str) -> str:
        """``"go"`` (reserved), ``"wait"`` (retry after a job finishes) or ``"stop"``."""
        with self.lock:
            if name not in self.expected:
                if self.reserved.get(name):
                    return "wait"  # (so something is in flight: the caller waits for it)
                estimate = 0.0
            else:
                estimate = self.expected[name]
            if self.spent + self.in_flight_usd + estimate > self.budget or self.spent >= self.budget:
                return "stop"
            self.reserved.setdefault(name, []).append(estimate)
            return "go"

    def settle(self, name: str, cost_usd: float) -> None:
        """A job of ``name`` finished having cost ``cost_usd``."""
        with self.lock:
            self.reserved[name].pop(0)
            self.spent += cost_usd
            self.expected[name] = max(self.expected.get(name, 0.0), cost_usd)

    @classmethod
    def from_records(cls, budget_usd: float, chunk_files: Iterable[Path]) -> CostGuard:
        """A guard that counts the cost of the run's finished chunks."""
        worst: dict[str, float]
        spent, worst = 0.0, {}
        for path in chunk_files:
            table = pq.read_table(path, columns=["dialogue_id", "baseline", "cost_usd"])
            if table.num_rows == 0:
                continue
            spent += float(pc.sum(table.column("cost_usd")).as_py() or 0.0)
            per = table.group_by(["baseline", "dialogue_id"]).aggregate([("cost_usd", "sum")])
            for b, c in zip(per.column("baseline").to_pylist(), per.column("cost_usd_sum").to_pylist(), strict=False):
                worst[b] = max(worst.get(b, 0.0), float(c))
        return cls(budget_usd, spent, worst)
