# The analyses that re-score runs at other settings (App. L Tables 16, 18, the NLI threshold sweep
# and its bimodality check; App. O Figure 6 error rates), computed by `trace-crs stats sensitivity`
# (trace_crs.stats.sensitivity) so that the book only reads results (STYLE "Book": it never runs models):
#   make sensitivity -> results/$(PROFILE)/sensitivity/<stem>.parquet, <stem> = the notebook / table stem
# Sample sizes, seed, runs and settings are parameters of this stage, not of the notebooks; override
# them on the command line (make paper T16_N=100 NLI_ENTAILMENT=hf:models/deberta); a changed value
# re-runs only its analysis and the notebook that shows it. Empty *_SETTINGS = the paper's settings.
# Included after paper.mk (mk/*.mk sorted), so RES, TRACE, TOOL, KB_MANIFEST, DIALOGUES, SCORE_SRC are set.
SENS_DIR       := $(RES)/sensitivity
SENS_SRC       := $(wildcard src/trace_crs/stats/*.py) src/trace_crs/cli/stats.py
smoke_or        = $(if $(filter smoke,$(PROFILE)),$(1),$(2))
T16_RUNS       ?= closed closed_llm
T16_N          ?= $(call smoke_or,30,300)
T16_SETTINGS   ?=
T18_RUNS       ?= closed closed_llm
T18_N          ?= $(call smoke_or,30,300)
T18_SETTINGS   ?=
NLI_RUN        ?= closed
NLI_BASELINES  ?= popularity,tfidf
NLI_N          ?= $(call smoke_or,10,50)
NLI_ENTAILMENT ?= embedding
NLI_SETTINGS   ?=
F06_RUNS       ?= closed closed_llm
F06_N          ?= $(call smoke_or,60,1000)
F06_FUZZY      ?=

sens_csv        = $(subst $(eval) ,$(comma),$(strip $(1)))
SENS_ARGS_t16_fuzzy_threshold   = fuzzy --n-dialogues $(T16_N) $(if $(T16_SETTINGS),--settings $(T16_SETTINGS))
SENS_ARGS_t18_spatial_threshold = spatial --n-dialogues $(T18_N) $(if $(T18_SETTINGS),--settings $(T18_SETTINGS))
SENS_ARGS_nli_threshold         = nli --n-dialogues $(NLI_N) --baselines $(NLI_BASELINES) --entailment $(NLI_ENTAILMENT) $(if $(NLI_SETTINGS),--settings $(NLI_SETTINGS))
SENS_ARGS_nli_bimodality        = bimodality --n-dialogues $(NLI_N) --baselines $(NLI_BASELINES) --entailment $(NLI_ENTAILMENT)
SENS_ARGS_f06_error_analysis    = errors --n-dialogues $(F06_N) $(if $(F06_FUZZY),--fuzzy-threshold $(F06_FUZZY))

# $(1) stem, $(2) runs, $(3) the notebook that shows it. The args file changes only when the
# stage's parameters do (as $(RES)/params/PARAMS), so a new value re-runs just this analysis.
define SENS_RULE
$(SENS_DIR)/args/$(1): FORCE
	@mkdir -p $$(@D)
	@echo '$$(SENS_ARGS_$(1)) --runs $(call sens_csv,$(2)) --seed $(SEED)' > $$@.tmp; cmp -s $$@.tmp $$@ && rm $$@.tmp || mv $$@.tmp $$@

$(SENS_DIR)/$(1).parquet: $(SENS_DIR)/args/$(1) $(2:%=$(RES)/runs/%/records.parquet) $(KB_MANIFEST) $(DIALOGUES) $(SCORE_SRC) $(SENS_SRC) | $(STAMP)
	mkdir -p $(RES)/timings
	$(TOOL) timed $(RES)/timings/sensitivity-$(1).json sensitivity/$(1) -- \
	  $(TRACE) stats sensitivity $$(SENS_ARGS_$(1)) --runs $(call sens_csv,$(2)) --seed $(SEED) --results $(RES) --out $$@

book/content/$(3).ipynb: $(SENS_DIR)/$(1).parquet
SENSITIVITY += $(SENS_DIR)/$(1).parquet
endef
SENSITIVITY :=
$(eval $(call SENS_RULE,t16_fuzzy_threshold,$(T16_RUNS),t16_fuzzy_threshold))
$(eval $(call SENS_RULE,t18_spatial_threshold,$(T18_RUNS),t18_spatial_threshold))
$(eval $(call SENS_RULE,nli_threshold,$(NLI_RUN),nli_threshold))
$(eval $(call SENS_RULE,nli_bimodality,$(NLI_RUN),nli_threshold))
$(eval $(call SENS_RULE,f06_error_analysis,$(F06_RUNS),f06_error_analysis))

sensitivity: $(SENSITIVITY) ## re-scoring analyses of App. L / App. O (results/<profile>/sensitivity/<stem>.parquet)

.PHONY: sensitivity
