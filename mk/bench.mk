# `make bench`: speed and memory as medians/ratios (never a timed test). One script per layer.
BENCH_SCRIPTS := $(sort $(wildcard bench/bench_*.py))

bench: $(STAMP) ## run every benchmark script in bench/ (writes results/bench/*.json)
	mkdir -p results/bench
	for s in $(BENCH_SCRIPTS); do echo "== $$s"; $(PY) $$s --out results/bench/$$(basename $$s .py | sed 's/^bench_//').json; done

.PHONY: bench
