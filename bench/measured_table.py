"""The generated block of the offline LLM speed benchmarks, rendered from ``make bench``'s JSON
files (numbers are read, never typed; the rows are :mod:`trace_crs.report.bench_table`'s).

    python bench/measured_table.py --bench results/bench                 # print the block
    python bench/measured_table.py --bench results/bench --readme FILE   # replace it in FILE

rewrites the lines between ``<!-- bench:llm-speed:begin -->`` and ``<!-- bench:llm-speed:end -->``
(the whole file is replaced atomically).  The book's Performance page shows the same rows from
the committed results in ``bench/results/``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from trace_crs.report.bench_table import (  # noqa: F401  (re-exported: the rows are tested here)
    BEGIN,
    END,
    block,
    differing,
    judge_row,
    kb_row,
    llama_build_row,
    paper_build_row,
    profile_rows,
    slots_row,
    throughput_row,
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", default="results/bench")
    p.add_argument("--readme")
    args = p.parse_args(argv)
    text = block(Path(args.bench))
    if not args.readme:
        print(text)
        return 0
    readme = Path(args.readme)
    old = readme.read_text()
    if BEGIN not in old or END not in old:
        raise SystemExit(f"{readme}: no {BEGIN} … {END} block to replace")
    new = old[: old.index(BEGIN)] + text + old[old.index(END) + len(END) :]
    fd, tmp = tempfile.mkstemp(dir=readme.parent, prefix=".readme.")
    with os.fdopen(fd, "w") as fh:
        fh.write(new)
    os.replace(tmp, readme)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
