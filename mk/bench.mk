# `make bench`: speed and memory as medians/ratios (never a timed test). One script per layer
# (bench_lm_throughput.py: the local LLM backend's server pool vs the serial path before Trace's worker).
BENCH_SCRIPTS := $(sort $(wildcard bench/bench_*.py))

bench: $(STAMP) ## run every benchmark script in bench/ (writes results/bench/*.json)
	mkdir -p results/bench
	for s in $(BENCH_SCRIPTS); do echo "== $$s"; $(PY) $$s --out results/bench/$$(basename $$s .py | sed 's/^bench_//').json; done
	$(MAKE) bench-draft

# Speculative decoding by prompt lookup (lm.draft, src/trace_crs/lm/prompt_lookup.py): the same
# judge and LLM Zero-Shot arms as above with drafts on vs off, interleaved in one run each.
bench-draft: $(STAMP) ## prompt-lookup drafts vs none: CoRE judge and LLM Zero-Shot turns/s (results/bench/*_draft.json)
	mkdir -p results/bench
	$(PY) bench/bench_judge_core.py --before-set lm.servers=1 --after-set lm.servers=1 lm.draft=prompt-lookup --out results/bench/judge_core_draft.json
	$(PY) bench/bench_lm_throughput.py --configs pool,draft --subset 2 --out results/bench/lm_throughput_draft.json

.PHONY: bench bench-draft

# The LLM half at scale: the paper's LLM configuration against the fake API (1.5 s median
# latency, 1 % 429s), concurrency 256 on N dialogues (killed once at half-way and resumed) vs 1 on a
# subset, extrapolated.  `make bench` runs the same script at its default size (300 dialogues).
LLM_SCALE_N ?= 10000
bench-llm-scale: $(STAMP) ## LLM half at scale against the fake API (LLM_SCALE_N=10000 dialogues, ≤ 45 min target)
	mkdir -p results/bench
	$(PY) bench/bench_llm_scale.py --n $(LLM_SCALE_N) --kill-at 0.5 --out results/bench/llm_scale_$(LLM_SCALE_N).json

.PHONY: bench-llm-scale

# The README's generated block of the offline LLM speed benchmarks (judge slots ÷ today's path,
# LLM Zero-Shot slots ÷ pool, the default KB build vs 60 s, the prefill/decode profile), read
# from results/bench/*.json written by `make bench`; numbers are never typed into the README.
bench-table: ## rewrite README's "bench:llm-speed" block from results/bench/*.json
	$(PY) bench/measured_table.py --bench results/bench --readme README.md

.PHONY: bench-table
