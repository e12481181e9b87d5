# Live runs (issue 19): the non-LLM baselines converse with the simulated user (trace-crs converse).
#   make live                 -> results/$(PROFILE)/live/live/live_scores.json (+ transcripts/, outcomes/, predictions/)
#   default: 1,000 seeded dialogues of the corpus; smoke: every dialogue of the smoke corpus.
# Included before paper.mk (mk/*.mk sorted), so paths are spelled here rather than with $(RES).
LIVE_OUT       := results/$(PROFILE)/live/live
LIVE_SUBSET    := $(if $(filter smoke,$(PROFILE)),,--subset 1000)
LIVE_MAX_TURNS ?= 4
LIVE_SRC       := $(filter-out src/trace_crs/report/% src/trace_crs/stats/% src/trace_crs/oracle/% src/trace_crs/cli/score.py src/trace_crs/cli/stats.py src/trace_crs/cli/evaluate.py,$(SRC))

$(LIVE_OUT)/live_scores.json: $(DIALOGUES) $(KB_DIR)/MANIFEST.json $(LIVE_SRC) | $(STAMP)
	rm -rf $(@D)
	mkdir -p results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/live.json live -- \
	  $(VENV)/bin/trace-crs --quiet converse --kb $(KB_DIR) --dialogues $(DIALOGUES) --baselines non-llm \
	  $(LIVE_SUBSET) --seed $(SEED) --max-turns $(LIVE_MAX_TURNS) --out $(@D)

# The chapter that reads it (its recipe is paper.mk's pattern rule for book/content/%.ipynb).
book/content/live_vs_replayed.ipynb: $(LIVE_OUT)/live_scores.json

live: $(LIVE_OUT)/live_scores.json ## live runs: non-LLM baselines converse with the simulated user

.PHONY: live
