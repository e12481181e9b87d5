# `make judge`: CoRE (trace_crs.judge) on one run's baselines — the same seeded dialogues for every
# baseline, two judges (Table 28's twin), read by notebooks/core_judge.py. Needs an LLM: judge A
# defaults to the local llama.cpp model, judge B to any litellm model (JUDGE_B_SET). Never part of
# `make paper`; the CoRE chapter says "not run" until these files exist.
#   make judge JUDGE_N=50 JUDGE_B_SET="lm.model=openai/gpt-4o-mini"
#   make judge-bench   # seconds and tokens per transcript: per-factor vs one-call, and the debate
# mk/*.mk are included in name order, before paper.mk: the paths it also defines (same values).
RES         ?= results/$(PROFILE)
KB_DIR      ?= data/kb/$(PROFILE)
DIALOGUES   ?= data/dialogues/$(PROFILE)/dialogues.jsonl
KB_MANIFEST ?= $(KB_DIR)/MANIFEST.json
TRACE       ?= $(VENV)/bin/trace-crs
JUDGE_RUN   ?= closed
JUDGE_N     ?= 20
JUDGE_SEED  ?= 42
JUDGE_AGG   ?= debate
JUDGE_A_SET ?= lm.model=local
JUDGE_B_SET ?= lm.model=openai/gpt-4o-mini
JUDGE_BENCH_N ?= 5
JDIR        := $(RES)/judge/$(JUDGE_RUN)
JUDGE_SRC   := $(filter src/trace_crs/judge/% src/trace_crs/lm/% src/trace_crs/cli/judge.py,$(SRC))

$(JDIR)/transcripts.jsonl: $(RES)/runs/$(JUDGE_RUN)/records.parquet $(DIALOGUES) $(KB_MANIFEST) $(JUDGE_SRC)
	mkdir -p $(@D)
	$(TRACE) judge transcripts --dialogues $(DIALOGUES) --kb $(KB_DIR) --run $(RES)/runs/$(JUDGE_RUN) \
	  --n $(JUDGE_N) --seed $(JUDGE_SEED) --out $@

$(JDIR)/core_a.jsonl: $(JDIR)/transcripts.jsonl $(JUDGE_SRC)
	$(TRACE) judge core --transcripts $< --out $@ --aggregator $(JUDGE_AGG) $(addprefix --set ,$(JUDGE_A_SET))

$(JDIR)/core_b.jsonl: $(JDIR)/transcripts.jsonl $(JUDGE_SRC)
	$(TRACE) judge core --transcripts $< --out $@ --aggregator avg $(addprefix --set ,$(JUDGE_B_SET))

$(JDIR)/agreement.json: $(JDIR)/core_a.jsonl $(JDIR)/core_b.jsonl
	$(TRACE) --quiet judge agree --pred $< --judge-b $(word 2,$^) --out $@

judge: $(JDIR)/agreement.json ## CoRE judge (two judges) on a run's baselines: results/$(PROFILE)/judge/
	touch $(JDIR)

# The chapter re-executes when judge outputs appear or change (only those that exist: the judge
# itself is never triggered by `make paper`).
book/content/core_judge.ipynb: $(wildcard $(JDIR)/core_a.jsonl $(JDIR)/core_b.jsonl)

JBENCH := $(RES)/judge/bench
judge-bench: $(JDIR)/transcripts.jsonl ## judge seconds/tokens per transcript: per-factor vs one-call vs debate
	mkdir -p $(JBENCH)
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --out $(JBENCH)/per_factor.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --mode one-call --out $(JBENCH)/one_call.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --aggregator debate --out $(JBENCH)/debate.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	for m in per_factor one_call debate; do $(TRACE) --quiet judge agree --pred $(JBENCH)/$$m.jsonl --out $(JBENCH)/$$m.cost.json; done

.PHONY: judge judge-bench
