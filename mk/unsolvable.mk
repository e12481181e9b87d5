# The unsolvable set and the systems' abstention on it (TravelBench's Unsolvable subtask, seed 003 §3).
#   make abstention  -> data/dialogues/$(PROFILE)/unsolvable.jsonl, results/$(PROFILE)/abstention/{reasons.csv,tau_sweep.csv,confidence.parquet}
# default: 300 unsolvable items (60 per reason, 5 reasons) against 300 seeded solvable dialogues; smoke: 40 and 60.
# Included after kb.mk, dialogues.mk and paper.mk (mk/*.mk sorted), so their variables are set.
UNSOLVABLE        := data/dialogues/$(PROFILE)/unsolvable.jsonl
ABSTENTION_OUT    := results/$(PROFILE)/abstention
N_UNSOLVABLE      := $(if $(filter smoke,$(PROFILE)),40,300)
N_SOLVABLE        := $(if $(filter smoke,$(PROFILE)),60,300)

$(UNSOLVABLE): data/dialogues/$(PROFILE)/dialogues.jsonl $(KB_DIR)/MANIFEST.json $(DIALOGUE_SOURCES) | $(STAMP)
	$(VENV)/bin/trace-crs dialogues unsolvable $< --kb $(KB_DIR) --n $(N_UNSOLVABLE) --seed $(SEED) --out $@

$(ABSTENTION_OUT)/tau_sweep.csv: $(UNSOLVABLE) data/dialogues/$(PROFILE)/dialogues.jsonl $(KB_DIR)/MANIFEST.json \
		src/trace_crs/baselines/abstain.py src/trace_crs/baselines/tfidf.py src/trace_crs/baselines/spatial.py \
		src/trace_crs/metrics/abstention.py src/trace_crs/cli/stats.py src/trace_crs/cli/stats_abstention.py | $(STAMP)
	mkdir -p $(@D) results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/abstention.json abstention -- \
	  $(VENV)/bin/trace-crs stats abstention --kb $(KB_DIR) --dialogues data/dialogues/$(PROFILE)/dialogues.jsonl \
	  --unsolvable $(UNSOLVABLE) --n-solvable $(N_SOLVABLE) --seed $(SEED) --out $(@D)

# The chapter that reads it (its recipe is paper.mk's pattern rule for book/content/%.ipynb).
book/content/travelbench_abstention.ipynb: $(ABSTENTION_OUT)/tau_sweep.csv

abstention: $(ABSTENTION_OUT)/tau_sweep.csv ## unsolvable set + rankers' abstention (tau sweep)

# The LLM baselines of the closed_llm run (its evaluate: section and local model) on a seeded
# subset of the unsolvable set and of solvable dialogues, with TravelBench's [Unsolved] rule in
# their prompt. A prerequisite of the chapter (its LLM rows), so part of `make paper`; smoke: 2 + 2
# items (plumbing only: each 135M turn takes ~10-50 s on a loaded 2-core machine).
N_UNSOLVABLE_LLM  := $(if $(filter smoke,$(PROFILE)),2,60)
N_SOLVABLE_LLM    := $(if $(filter smoke,$(PROFILE)),2,60)
ABST_LLM_CFG      := configs/$(PROFILE)/closed_llm.yaml
ABST_LLM_ARGS     ?=   # e.g. --baselines llm_zero_shot,rag_citation

$(ABSTENTION_OUT)/llm_abstention.csv: $(UNSOLVABLE) $(ABST_LLM_CFG) data/dialogues/$(PROFILE)/dialogues.jsonl $(KB_DIR)/MANIFEST.json \
		src/trace_crs/baselines/abstain.py src/trace_crs/baselines/unsolved_rule.py src/trace_crs/metrics/abstention.py \
		$(filter src/trace_crs/baselines/llm_% src/trace_crs/lm/%,$(SRC)) $(if $(LIVE_LLM_W),models/$(LIVE_LLM_W).gguf $(VENV)/.llama-installed) | $(STAMP)
	mkdir -p $(@D) results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/abstention_llm.json abstention-llm -- \
	  $(VENV)/bin/trace-crs stats abstention-llm --config $(ABST_LLM_CFG) --kb $(KB_DIR) \
	  --dialogues data/dialogues/$(PROFILE)/dialogues.jsonl --unsolvable $(UNSOLVABLE) \
	  --n-unsolvable $(N_UNSOLVABLE_LLM) --n-solvable $(N_SOLVABLE_LLM) --seed $(SEED) $(ABST_LLM_ARGS) --out $(@D)

book/content/travelbench_abstention.ipynb: $(ABSTENTION_OUT)/llm_abstention.csv

abstention-llm: $(ABSTENTION_OUT)/llm_abstention.csv ## LLM baselines on the unsolvable set ([Unsolved] rule; local model)

.PHONY: abstention abstention-llm
