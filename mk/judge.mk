# `make judge`: CoRE (trace_crs.judge) on one run's baselines — the same seeded dialogues for every
# baseline, two judges (Table 28's twin), read by notebooks/core_judge.py. Needs an LLM: judge A
# defaults to the local llama.cpp model, judge B to any litellm model (JUDGE_B_SET). The replayed
# judging is never part of `make paper` (its sections say "not run" until these files exist); the
# live judging (`make judge-live`, below) is: the chapter's main table.
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
JUDGE_SEED  ?= $(SEED)
JUDGE_AGG   ?= debate
JUDGE_A_SET ?= lm.model=local
JUDGE_B_SET ?= lm.model=openai/gpt-4o-mini
JUDGE_BENCH_N ?= 5
JDIR        := $(RES)/judge/$(JUDGE_RUN)
JUDGE_SRC   := $(filter src/trace_crs/judge/% src/trace_crs/lm/% src/trace_crs/cli/judge.py src/trace_crs/cli/judge_transcripts.py src/trace_crs/cli/judge_agree.py,$(SRC))
# judge validity's paths (the rules are at the end of this file)
CRSARENA_DIR ?= ../shared/data/crsarena-eval-dev
JV_ARENA     := $(CRSARENA_DIR)/crs_arena_eval_opendialkg.json
JV_FACE      := $(wildcard $(CRSARENA_DIR)/face_run_opendialkg.json)
JV_CFG       := configs/judge_validity_$(PROFILE).yaml
JV_DIR       := $(RES)/judge_validity
JV_ON        := $(and $(wildcard $(JV_ARENA)),$(wildcard $(JV_CFG)))
JV_WEIGHTS   := $(if $(wildcard $(JV_CFG)),$(sort $(shell sed -n 's/.*lm\.weights=\([A-Za-z0-9_.-]*\).*/\1/p' $(JV_CFG))))
JV_ARGS       = --candidates $(JV_CFG) --arena $(JV_ARENA) $(if $(JV_FACE),--face $(JV_FACE)) --out $(JV_DIR)
# the chosen candidate's judge core flags without its --set pairs (the live judge's mode and rating)
JV_CHOSEN_MODE = $(shell $(PY) -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1])); a = c["candidates"][c["chosen"]]; print(" ".join(x for i, x in enumerate(a) if x != "--set" and (i == 0 or a[i - 1] != "--set")))' $(JV_CFG))


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

judge: $(JDIR)/agreement.json judge-live ## CoRE judge (two judges) on a run's baselines and on the live conversations: results/$(PROFILE)/judge/
	touch $(JDIR)

# CoRE on the conversations systems actually had (`make live`, `make live-llm`): every non-LLM
# baseline on JUDGE_LIVE_N seeded dialogues of the live run, every LLM baseline on as many of the
# LLM live run's. Only the live turns are rated: the opening request, identical for every system,
# is history (trace_crs.judge.adapters.from_live). One judge, per factor, CoRE-Avg (the debate:
# JUDGE_LIVE_AGG=debate), plus Persuasiveness. A prerequisite of the CoRE chapter, so `make paper`
# runs it: the judge is the local model on the closed_llm run's weights (the model of the LLM rows;
# configs/$(PROFILE)/closed_llm.yaml), JUDGE_LIVE_SET overrides
# (`make paper JUDGE_LIVE_SET="lm.model=openai/gpt-4o-mini"`). Cost: the local judge spends minutes
# per conversation on 2 shared cores (README: one transcript, 12 calls, 675 s of 0.5B model time at
# load 15), so the default JUDGE_LIVE_N = 20 conversations per baseline (the fewest whose interval
# the book treats as evidence) is hours; a smaller n: `make paper JUDGE_LIVE_N=5`. Smoke: two
# seeded conversations of the collected ones (one per baseline), replies cut at 64 tokens, no
# re-asks, no Persuasiveness (plumbing only: the 135M model never gave a usable rating here, and
# one conversation took 756 s of model time at load 12-15).
JUDGE_LIVE_N    ?= $(if $(filter smoke,$(PROFILE)),1,20)
# JUDGE_LIVE_N=0 leaves the live judging out of `make paper` (the rest of the default book without
# its hours of judge time): the CoRE pages then read only the judge outputs already on disk and
# say "not run" for the others.
JUDGE_LIVE_ON   := $(filter-out 0,$(strip $(JUDGE_LIVE_N)))
JLIVE           := $(RES)/judge/live
JUDGE_LIVE_CFG  := configs/$(PROFILE)/closed_llm.yaml
JUDGE_LIVE_W    := $(strip $(shell sed -n 's/^weights: *\([^ #]*\).*/\1/p' $(JUDGE_LIVE_CFG) 2>/dev/null))
JUDGE_LIVE_SET  ?= lm.model=local $(if $(JUDGE_LIVE_W),lm.weights=$(JUDGE_LIVE_W))
JUDGE_LIVE_AGG  ?= avg
# The live judge's mode: the configuration chosen against human ratings (configs/judge_validity_$(PROFILE).yaml's `chosen`,
# below) when the judge is local; the paper's per-factor rationale-and-rating when it is not (an API judge).
JUDGE_LIVE_MODE ?= $(if $(and $(filter lm.model=local,$(JUDGE_LIVE_SET)),$(wildcard $(JV_CFG))),$(JV_CHOSEN_MODE))
JUDGE_LIVE_ARGS ?= $(if $(filter smoke,$(PROFILE)),--n 2 --retries 0 --set lm.max_tokens=64,--persuasiveness)
# the LLM live run exists wherever the profile has a closed_llm config (mk/live.mk)
JUDGE_LIVE_LLM   = $(if $(wildcard $(JUDGE_LIVE_CFG)),results/$(PROFILE)/live/live_llm)
JUDGE_LIVE_RUNS  = results/$(PROFILE)/live/live $(JUDGE_LIVE_LLM)
JUDGE_LIVE_WGT  := $(if $(and $(filter lm.model=local,$(JUDGE_LIVE_SET)),$(JUDGE_LIVE_W)),models/$(JUDGE_LIVE_W).gguf $(VENV)/.llama-installed)

$(JLIVE)/transcripts.jsonl: $(addsuffix /live_scores.json,$(JUDGE_LIVE_RUNS)) $(JUDGE_SRC)
	mkdir -p $(@D)
	$(TRACE) judge transcripts $(addprefix --live ,$(JUDGE_LIVE_RUNS)) --n $(JUDGE_LIVE_N) --seed $(JUDGE_SEED) --out $@

$(JLIVE)/core_a.jsonl: $(JLIVE)/transcripts.jsonl $(JUDGE_SRC) $(JUDGE_LIVE_WGT) $(wildcard $(JV_CFG))
	mkdir -p results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/judge_live.json judge-live -- \
	  $(TRACE) --quiet judge core --transcripts $< --out $@ --aggregator $(JUDGE_LIVE_AGG) $(JUDGE_LIVE_MODE) $(JUDGE_LIVE_ARGS) \
	  $(addprefix --set ,$(JUDGE_LIVE_SET))

judge-live: $(JLIVE)/core_a.jsonl ## CoRE judge on the live conversations of every baseline (results/$(PROFILE)/judge/live/)

book/content/core_judge.ipynb: $(if $(JUDGE_LIVE_ON),$(JLIVE)/core_a.jsonl)

# With asking against without, judged (trace_crs.report.core_asking): the same seeded dialogues and
# judge settings as judge-live, on the non-LLM rankers' conversations with one question allowed
# (`make live-ask`, part of `make paper`) and on the LLM baselines' no-ask run (`make live-llm-noask`:
# their default live run asks; `make judge-live-noask`, not part of `make paper`: LLM hours).
# Smoke: not a prerequisite (the page reads it only if it exists): judging two more conversations
# with the 135M model took 427 s of wall time on a cold LM cache at load 3-4, far over the smoke
# budget, and the tiny model gives no usable rating anyway.
JUDGE_PAIRED := live_ask live_llm_noask
$(JUDGE_PAIRED:%=$(RES)/judge/%/transcripts.jsonl): $(RES)/judge/%/transcripts.jsonl: results/$(PROFILE)/live/%/live_scores.json $(JUDGE_SRC)
	mkdir -p $(@D)
	$(TRACE) judge transcripts --live results/$(PROFILE)/live/$* --n $(JUDGE_LIVE_N) --seed $(JUDGE_SEED) --out $@

$(JUDGE_PAIRED:%=$(RES)/judge/%/core_a.jsonl): $(RES)/judge/%/core_a.jsonl: $(RES)/judge/%/transcripts.jsonl $(JUDGE_SRC) $(JUDGE_LIVE_WGT)
	mkdir -p results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/judge_$*.json judge-$* -- \
	  $(TRACE) --quiet judge core --transcripts $< --out $@ --aggregator $(JUDGE_LIVE_AGG) $(JUDGE_LIVE_MODE) $(JUDGE_LIVE_ARGS) \
	  $(addprefix --set ,$(JUDGE_LIVE_SET))

judge-live-ask: $(RES)/judge/live_ask/core_a.jsonl ## CoRE judge on the non-LLM live conversations with one question allowed
judge-live-noask: $(RES)/judge/live_llm_noask/core_a.jsonl ## CoRE judge on the LLM baselines' live conversations without asking

book/content/core_judge.ipynb: $(if $(JUDGE_LIVE_ON),$(if $(filter smoke,$(PROFILE)),$(wildcard $(RES)/judge/live_ask/core_a.jsonl),$(RES)/judge/live_ask/core_a.jsonl)) \
  $(wildcard $(RES)/judge/live_llm_noask/core_a.jsonl)

.PHONY: judge-live-ask judge-live-noask

# The chapter re-executes when judge outputs appear or change (only those that exist: the judge
# itself is never triggered by `make paper`).
book/content/core_judge.ipynb: $(wildcard $(JDIR)/core_a.jsonl $(JDIR)/core_b.jsonl)

# CoRE Fig. 5 (notebooks/core_fig5_debate_agreement.py): CoRE ran the debate for ten rounds on a
# sample to see how agreement grows per round; this is that run on the replayed transcripts (judge A,
# JUDGE_ROUNDS rounds; it still stops at unanimity). Needs an LLM for hours: not part of `make paper`.
JUDGE_ROUNDS ?= 10
$(JDIR)/rounds.jsonl: $(JDIR)/transcripts.jsonl $(JUDGE_SRC)
	$(TRACE) --quiet judge core --transcripts $< --out $@ --aggregator debate --max-rounds $(JUDGE_ROUNDS) \
	  $(addprefix --set ,$(JUDGE_A_SET))

judge-rounds: $(JDIR)/rounds.jsonl ## CoRE Fig. 5's run: the debate held for JUDGE_ROUNDS rounds (results/$(PROFILE)/judge/)

# Figs. 5 and 9 read whichever judge outputs exist (the live judge is part of `make paper`).
book/content/core_fig5_debate_agreement.ipynb book/content/core_fig9_factor_tau.ipynb: $(if $(JUDGE_LIVE_ON),$(JLIVE)/core_a.jsonl) \
  $(wildcard $(JDIR)/rounds.jsonl $(JDIR)/core_a.jsonl $(JDIR)/core_b.jsonl)

.PHONY: judge-rounds

JBENCH := $(RES)/judge/bench
judge-bench: $(JDIR)/transcripts.jsonl ## judge seconds/tokens per transcript: per-factor vs one-call vs debate
	mkdir -p $(JBENCH)
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --out $(JBENCH)/per_factor.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --mode one-call --out $(JBENCH)/one_call.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	$(TRACE) --quiet judge core --transcripts $< --n $(JUDGE_BENCH_N) --aggregator debate --out $(JBENCH)/debate.jsonl $(addprefix --set ,$(JUDGE_A_SET))
	for m in per_factor one_call debate; do $(TRACE) --quiet judge agree --pred $(JBENCH)/$$m.jsonl --out $(JBENCH)/$$m.cost.json; done

.PHONY: judge judge-bench judge-live

# `make judge-likert`: Table 28 (Appendix T) — two judges re-score one run's baselines with Trace's
# Likert judge (trace_crs.metrics.judge) on the same seeded turns as Table 29 (T28_N judged
# dialogues, one turn each; default: the run's own judge_n, so judge A replays Table 29's judge
# from the LM cache). Each judge is any `score --judge` name: `local`, registered local weights,
# a litellm model, or `model=…,api_base=…` settings. Read by notebooks/t28_cross_judge.py. Part of
# `make paper` where T28_IN_PAPER is set (default profile: its calls are in the LM records, issue 45);
# elsewhere the page reads what exists and says "not run" until `make judge-likert` has run.
#   make judge-likert T28_B=openai/gpt-4o-mini T28_N=50
T28_RUN       ?= closed
T28_A         ?= local
T28_B         ?= qwen2.5-coder-0.5b-instruct-q4_k_m
T28_N         ?= $(or $(call cfg_value,$(T28_RUN),judge_n),4)
T28_BASELINES ?= popularity tfidf aspect dense spatial hybrid_rrf   # the paper's six non-LLM rows
T28_DIR       := $(RES)/judge/$(T28_RUN)
T28_SRC       := $(filter src/trace_crs/metrics/% src/trace_crs/lm/% src/trace_crs/cli/score.py src/trace_crs/config.py,$(SRC))

# $(1): likert_a | likert_b, $(2): the variable naming its judge. Written to a temporary sibling,
# renamed when every baseline is scored; each baseline's scoring is a timed step (its LM records name it).
# the local weights the two judges name, made before they run: a name without "/" (a litellm model)
# or "=" (settings) is registered weights; `local` is the LM config's default weights
T28_LOCAL    := $(patsubst %,models/%.gguf,$(subst local,qwen2.5-coder-1.5b-instruct-q4_k_m,$(filter-out %/% %=%,$(T28_A) $(T28_B))))
define T28_RULE
$(T28_DIR)/$(1)/.done: $(RES)/runs/$(T28_RUN)/records.parquet configs/$(PROFILE)/$(T28_RUN).yaml $(DIALOGUES) $(KB_MANIFEST) $(T28_SRC) | $(T28_LOCAL) $(if $(T28_LOCAL),$(VENV)/.llama-installed)
	rm -rf $$(@D).tmp && mkdir -p $$(@D).tmp results/$(PROFILE)/timings
	for b in $(T28_BASELINES); do \
	  $(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/judge-likert-$(1)-$$$$b.json judge-likert/$(1)/$$$$b -- \
	  $(TRACE) --quiet score --kb $(KB_DIR) --dialogues $(DIALOGUES) --predictions $(RES)/runs/$(T28_RUN)/predictions/$$$$b.jsonl \
	    --dialogue-ids $(RES)/runs/$(T28_RUN)/dialogue_ids.json --config configs/$(PROFILE)/$(T28_RUN).yaml \
	    --set entailment=none --set 'judge=$$($(2))' --set judge_n=$$(T28_N) --out $$(@D).tmp/$$$$b.json; done
	rm -rf $$(@D) && mv $$(@D).tmp $$(@D) && touch $$@
endef
$(eval $(call T28_RULE,likert_a,T28_A))
$(eval $(call T28_RULE,likert_b,T28_B))

judge-likert: $(T28_DIR)/likert_a/.done $(T28_DIR)/likert_b/.done ## Table 28: two Likert judges on a run's baselines (results/$(PROFILE)/judge/)

T28_IN_PAPER  ?= $(filter default,$(PROFILE))
book/content/t28_cross_judge.ipynb: $(if $(T28_IN_PAPER),$(T28_DIR)/likert_a/.done $(T28_DIR)/likert_b/.done,$(wildcard $(T28_DIR)/likert_a/.done $(T28_DIR)/likert_b/.done))

.PHONY: judge-likert

# Does the judge agree with people? (trace_crs.judge.validity, issue 44): the CoRE judge's candidate
# configurations (configs/judge_validity_$(PROFILE).yaml) against CRSArena-Eval's human ratings, read
# from ../shared (never copied here; without it the page says "not run"). `make judge-select` judges
# every candidate on every conversation (once; its LLM calls stay in the LM cache and the profile's
# records), `make judge-validity` (part of `make paper`) writes
# results/$(PROFILE)/judge_validity/{validity.json,scores.parquet,chosen.jsonl}: in the default
# profile it judges every candidate too (JV_JUDGE=all: the 1.5B candidates' calls are recorded in
# data/lm-records/default, so they replay in about a minute and the page shows every candidate),
# in smoke only the chosen one (JV_JUDGE=chosen: no records, CI's time).
JV_JUDGE ?= $(if $(filter smoke,$(PROFILE)),chosen,all)
$(JV_DIR)/validity.json: $(JV_CFG) $(JUDGE_SRC) $(JV_ARENA) $(JV_FACE) $(JV_WEIGHTS:%=models/%.gguf) $(VENV)/.llama-installed
	mkdir -p $(JV_DIR) results/$(PROFILE)/timings
	$(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/judge_validity.json judge-validity -- \
	  $(TRACE) --quiet judge validity $(JV_ARGS) --judge $(JV_JUDGE)

judge-validity: $(JV_DIR)/validity.json ## the book's CoRE judge against 200 human-rated conversations (../shared CRSArena-Eval)

judge-select: $(JV_CFG) $(JV_WEIGHTS:%=models/%.gguf) $(VENV)/.llama-installed ## judge every candidate of configs/judge_validity_PROFILE.yaml on the development set (run once)
	mkdir -p $(JV_DIR)
	$(TRACE) judge validity $(JV_ARGS) --judge all

book/content/judge_validity.ipynb book/content/core_judge.ipynb book/content/core_fig5_debate_agreement.ipynb \
  book/content/core_fig9_factor_tau.ipynb: $(if $(JV_ON),$(JV_DIR)/validity.json)

.PHONY: judge-validity judge-select
