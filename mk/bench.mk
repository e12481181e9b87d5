# `make bench`: speed and memory as medians/ratios (never a timed test). One script per layer
# (bench_lm_throughput.py: the local LLM backend's server pool vs the serial path before Trace's worker).
BENCH_SCRIPTS := $(filter-out bench/bench_llama_build.py,$(sort $(wildcard bench/bench_*.py)))

bench: $(STAMP) ## run every benchmark script in bench/ (writes results/bench/*.json)
	mkdir -p results/bench
	for s in $(BENCH_SCRIPTS); do echo "== $$s"; $(PY) $$s --out results/bench/$$(basename $$s .py | sed 's/^bench_//').json; done
	$(MAKE) bench-draft bench-llama-build

# Speculative decoding by prompt lookup (lm.draft, src/trace_crs/lm/prompt_lookup.py): the same
# judge and LLM Zero-Shot arms as above with drafts on vs off, interleaved in one run each.
bench-draft: $(STAMP) ## prompt-lookup drafts vs none: CoRE judge and LLM Zero-Shot turns/s (results/bench/*_draft.json)
	mkdir -p results/bench
	$(PY) bench/bench_judge_core.py --after-mode "--mode per-factor" --before-set lm.servers=1 --after-set lm.servers=1 lm.draft=prompt-lookup --workers-check 0 --out results/bench/judge_core_draft.json
	$(PY) bench/bench_lm_throughput.py --configs pool,draft --subset 2 --out results/bench/lm_throughput_draft.json

# Portable vs native llama.cpp build (src/trace_crs/lm/build.py): the native build compiled into
# results/bench/llama-native (pip --target, no wheel cache; ~10 min on 2 cores), then prompt
# processing and decoding tokens per CPU-second of the 0.5B model, alternating builds.
LLAMA_NATIVE_SITE := results/bench/llama-native
bench-llama-build: $(STAMP) $(VENV)/.llama-installed models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf ## portable vs native llama.cpp build: prefill/decode speed (results/bench/llama_build.json)
	rm -rf $(LLAMA_NATIVE_SITE) && mkdir -p results/bench
	CMAKE_ARGS="$(LLAMA_NATIVE_CMAKE)" $(PY) -m pip install -q --no-cache-dir --no-deps --target $(LLAMA_NATIVE_SITE) "llama-cpp-python==0.3.36"
	$(PY) bench/bench_llama_build.py --native-site $(LLAMA_NATIVE_SITE) --out results/bench/llama_build.json

.PHONY: bench bench-draft bench-llama-build

# The LLM half at scale: the paper's LLM configuration against the fake API (1.5 s median
# latency, 1 % 429s), concurrency 256 on N dialogues (killed once at half-way and resumed) vs 1 on a
# subset, extrapolated.  `make bench` runs the same script at its default size (300 dialogues).
LLM_SCALE_N ?= 10000
bench-llm-scale: $(STAMP) ## LLM half at scale against the fake API (LLM_SCALE_N=10000 dialogues, ≤ 45 min target)
	mkdir -p results/bench
	$(PY) bench/bench_llm_scale.py --n $(LLM_SCALE_N) --kill-at 0.5 --out results/bench/llm_scale_$(LLM_SCALE_N).json

.PHONY: bench-llm-scale

# The book's Performance page renders the committed results in bench/results/ (numbers are never
# typed): after `make bench`, copy its JSON files there and commit them; the rows are printed.
bench-table: ## copy results/bench/*.json into bench/results/ (commit them: the Performance page reads them) and print the rows
	mkdir -p bench/results
	cp results/bench/*.json bench/results/
	$(PY) bench/measured_table.py --bench bench/results

.PHONY: bench-table
