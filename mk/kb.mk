# The POI knowledge base (paper §2, App. D; ARCHITECTURE §1): synthetic by default, a real Yelp bundle when YELP_DIR is set.
#   make kb                      -> data/kb/$(PROFILE)/{pois,reviews}.jsonl + MANIFEST.json
#   make kb YELP_DIR=/path/yelp  -> the same from yelp_academic_dataset_{business,review}.json
KB_DIR      := data/kb/$(PROFILE)
KB_PER_CELL := $(if $(filter smoke,$(PROFILE)),40,100)
YELP_DIR    ?=
KB_SOURCES  := $(sort $(wildcard src/trace_crs/kb/*.py src/trace_crs/kb/data/*)) src/trace_crs/cli/kb.py
KB_ARGS     := $(if $(YELP_DIR),--source yelp --yelp-dir $(YELP_DIR),--source synthetic)

# The build arguments as a file rewritten only when they change (switching source/seed rebuilds).
$(KB_DIR)/.build-args: FORCE
	mkdir -p $(@D)
	echo '$(KB_ARGS) --per-cell $(KB_PER_CELL) --seed $(SEED)' | cmp -s - $@ || echo '$(KB_ARGS) --per-cell $(KB_PER_CELL) --seed $(SEED)' > $@

ifneq ($(PROFILE),official)  # official: the KB comes from `trace-crs release import` (mk/official.mk)
$(KB_DIR)/MANIFEST.json: $(STAMP) $(KB_SOURCES) $(KB_DIR)/.build-args $(if $(YELP_DIR),$(wildcard $(YELP_DIR)/yelp_academic_dataset_*.json))
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/kb.json kb/build -- $(VENV)/bin/trace-crs kb build $(KB_ARGS) --per-cell $(KB_PER_CELL) --seed $(SEED) --out $(KB_DIR)
endif

kb: $(KB_DIR)/MANIFEST.json ## build the POI knowledge base (YELP_DIR=... for a real Yelp bundle; PROFILE=smoke for 40/cell)

kb-stats: $(KB_DIR)/MANIFEST.json ## print the Table-3-style KB summary and write results/$(PROFILE)/kb_stats.json
	$(VENV)/bin/trace-crs kb stats $(KB_DIR) --json results/$(PROFILE)/kb_stats.json

.PHONY: kb kb-stats FORCE
FORCE:

# The realism report (kb.realism): synthetic reviews vs the Yelp sample, aggregates only; the data
# card includes its Markdown table (book/content/kb_realism.md). Without the sample, only the
# synthetic side is reported.
KB_REALISM_REF ?= ../shared/data/yelp-sample
KB_REALISM     := results/$(PROFILE)/kb_realism.json
$(KB_REALISM): $(KB_DIR)/MANIFEST.json src/trace_crs/kb/realism.py src/trace_crs/kb/discriminator.py
	mkdir -p $(@D) $(BOOK_DIR)/content
	$(VENV)/bin/trace-crs kb realism --kb $(KB_DIR) $(if $(wildcard $(KB_REALISM_REF)/yelp_academic_dataset_review.json),--reference $(KB_REALISM_REF)) --out $@ --markdown $(BOOK_DIR)/content/kb_realism.md

kb-realism: $(KB_REALISM) ## compare the KB's reviews with the Yelp sample (results/$(PROFILE)/kb_realism.json + data-card table)

.PHONY: kb-realism
