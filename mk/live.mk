# Live runs (TravelBench's simulated-user loop, seed 003 §3): baselines converse with the simulated user (trace-crs converse).
#   make live       -> results/$(PROFILE)/live/live/: the non-LLM baselines; default: 1,000 seeded
#                      dialogues of the corpus, smoke: every dialogue (a prerequisite of the chapter)
#   make live-llm   -> results/$(PROFILE)/live/live_llm/: the LLM baselines on the closed_llm run's
#                      subset with its local model (configs/$(PROFILE)/closed_llm.yaml, its evaluate:
#                      section); judged by `make judge-live`, so part of `make paper`
# Included before paper.mk (mk/*.mk sorted), so paths are spelled here rather than with $(RES).
LIVE_ROOT      := results/$(PROFILE)/live
LIVE_SUBSET    := $(if $(filter smoke,$(PROFILE)),,--subset 1000)
LIVE_MAX_TURNS ?= 4
LIVE_SRC       := $(filter-out src/trace_crs/report/% src/trace_crs/stats/% src/trace_crs/oracle/% src/trace_crs/cli/score.py src/trace_crs/cli/stats.py src/trace_crs/cli/stats_abstention.py src/trace_crs/cli/evaluate.py,$(SRC))
LIVE_LLM_CFG   := configs/$(PROFILE)/closed_llm.yaml
# LLM baselines may ask this many questions, in their own words (the [Ask] rule in their prompt
# while a question is left: trace_crs.baselines.ask_rule); CoRE's Proactiveness needs a system that can ask
LIVE_LLM_ASK   ?= 1
# a smaller live run, e.g. LIVE_BASELINES=popularity,tfidf LIVE_LLM_ARGS="--subset 2 --baselines llm_zero_shot"
LIVE_BASELINES ?= non-llm
LIVE_LLM_ARGS  ?=
LIVE_LLM_W     := $(strip $(shell sed -n 's/^weights: *\([^ #]*\).*/\1/p' $(LIVE_LLM_CFG) 2>/dev/null))
LIVE_TIMED      = $(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/$(1).json $(1) --

$(LIVE_ROOT)/live/live_scores.json: $(DIALOGUES) $(KB_DIR)/MANIFEST.json $(LIVE_SRC) | $(STAMP)
	rm -rf $(@D)
	mkdir -p results/$(PROFILE)/timings
	$(call LIVE_TIMED,live) $(VENV)/bin/trace-crs --quiet converse --kb $(KB_DIR) --dialogues $(DIALOGUES) \
	  --baselines $(LIVE_BASELINES) $(LIVE_SUBSET) --seed $(SEED) --max-turns $(LIVE_MAX_TURNS) --out $(@D)

$(LIVE_ROOT)/live_llm/live_scores.json: $(LIVE_LLM_CFG) $(DIALOGUES) $(KB_DIR)/MANIFEST.json $(LIVE_SRC) $(if $(LIVE_LLM_W),models/$(LIVE_LLM_W).gguf $(VENV)/.llama-installed) | $(STAMP)
	rm -rf $(@D)
	mkdir -p results/$(PROFILE)/timings
	$(call LIVE_TIMED,live_llm) $(VENV)/bin/trace-crs --quiet converse --config $(LIVE_LLM_CFG) --kb $(KB_DIR) \
	  --dialogues $(DIALOGUES) --max-turns $(LIVE_MAX_TURNS) --ask $(LIVE_LLM_ASK) $(LIVE_LLM_ARGS) --out $(@D)

# The LLM baselines' live run without asking (their default live run may ask, LIVE_LLM_ASK): the
# no-ask side of the CoRE chapter's "with asking against without" (trace_crs.report.core_asking).
# LLM hours at default scale: not part of `make paper`.
$(LIVE_ROOT)/live_llm_noask/live_scores.json: $(LIVE_LLM_CFG) $(DIALOGUES) $(KB_DIR)/MANIFEST.json $(LIVE_SRC) $(if $(LIVE_LLM_W),models/$(LIVE_LLM_W).gguf $(VENV)/.llama-installed) | $(STAMP)
	rm -rf $(@D)
	mkdir -p results/$(PROFILE)/timings
	$(call LIVE_TIMED,live_llm_noask) $(VENV)/bin/trace-crs --quiet converse --config $(LIVE_LLM_CFG) --kb $(KB_DIR) \
	  --dialogues $(DIALOGUES) --max-turns $(LIVE_MAX_TURNS) --ask 0 $(LIVE_LLM_ARGS) --out $(@D)

live-llm-noask: $(LIVE_ROOT)/live_llm_noask/live_scores.json ## live runs of the LLM baselines without asking (closed_llm subset)

.PHONY: live-llm-noask

# The same non-LLM live run with one clarifying question allowed (trace_crs.live.ask: the facet
# that splits the candidates most evenly); the CoRE chapter compares it with `live` (did asking help?).
$(LIVE_ROOT)/live_ask/live_scores.json: $(DIALOGUES) $(KB_DIR)/MANIFEST.json $(LIVE_SRC) | $(STAMP)
	rm -rf $(@D)
	mkdir -p results/$(PROFILE)/timings
	$(call LIVE_TIMED,live_ask) $(VENV)/bin/trace-crs --quiet converse --kb $(KB_DIR) --dialogues $(DIALOGUES) \
	  --baselines $(LIVE_BASELINES) $(LIVE_SUBSET) --seed $(SEED) --max-turns $(LIVE_MAX_TURNS) --ask 1 --out $(@D)

# The CoRE chapter reads all three (its live judge, mk/judge.mk, reads `live` and `live_llm`).
book/content/core_judge.ipynb: $(LIVE_ROOT)/live_ask/live_scores.json $(LIVE_ROOT)/live/live_scores.json

# The chapter that reads them (its recipe is paper.mk's pattern rule for book/content/%.ipynb).
book/content/live_vs_replayed.ipynb: $(LIVE_ROOT)/live/live_scores.json

live: $(LIVE_ROOT)/live/live_scores.json ## live runs: non-LLM baselines converse with the simulated user
live-llm: $(LIVE_ROOT)/live_llm/live_scores.json ## live runs of the LLM baselines (closed_llm subset, local model)
live-ask: $(LIVE_ROOT)/live_ask/live_scores.json ## live runs of the non-LLM baselines allowed one clarifying question

.PHONY: live live-llm live-ask
