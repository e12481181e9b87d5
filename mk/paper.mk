# `make paper`: KB → dialogues → runs → scores → notebooks (papermill) → jupyter-book HTML.
# Every step has real file prerequisites (make -j safe; nothing re-runs unless an input or the
# code changed). One config per run: configs/$(PROFILE)/<run>.yaml (see book/reproduce.md).
# Ablations: make paper PARAMS="n_boot=2000" re-executes only the notebooks
# whose params/$(PROFILE)/<name>.yaml declares one of those keys. Run-level ablations:
# make paper SET="score.fuzzy_threshold=0.9" overrides a key of every run config (score.* keys
# re-score only; evaluate.* keys re-run the runs).

# `make paper` (and `lm-steps`) run independent steps side by side on every core (measured: the default
# book's serial build is CPU-bound on one core at a time, bench/results/paper_build_serial.json);
# JOBS=1 runs one step at a time, and a -j given on the command line wins.
JOBS        ?= $(shell nproc)
ifneq ($(filter paper lm-steps,$(MAKECMDGOALS)),)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS   += -j$(JOBS) --output-sync=target
endif
endif

KB_DIR      ?= data/kb/$(PROFILE)
DIALOGUES   ?= data/dialogues/$(PROFILE)/dialogues.jsonl
LLAMA_STAMP ?= $(VENV)/.llama-installed
TRACE       := $(VENV)/bin/trace-crs
TOOL        := $(PY) book/tools/pipeline.py
RES         := results/$(PROFILE)
KB_MANIFEST := $(KB_DIR)/MANIFEST.json
PARAMS      ?=
SET         ?=
# LM=<litellm model>: the backbone of every run's LLM baselines (`make paper PROFILE=paper
# LM=openai/gpt-5.4-mini`); the same as SET="evaluate.lm.model=<model>", kept with any SET given.
LM          ?=
override SET += $(if $(LM),evaluate.lm.model=$(LM))
comma       := ,
# What a run executes (not metrics, statistics, report or release code — runner never imports release): editing a table notebook's
# module re-executes notebooks, never baselines; editing a metric re-scores, never re-runs.
RUN_SRC     := $(filter-out src/trace_crs/report/% src/trace_crs/stats/% src/trace_crs/oracle/% src/trace_crs/metrics/% src/trace_crs/release/% src/trace_crs/cli/score.py src/trace_crs/cli/stats.py src/trace_crs/cli/stats_abstention.py,$(SRC))
SCORE_SRC   := $(filter src/trace_crs/metrics/% src/trace_crs/kb/% src/trace_crs/dialogues/% src/trace_crs/lm/% src/trace_crs/cli/score.py src/trace_crs/config.py,$(SRC))

# A run re-executes from scratch when an input changed (its old directory is removed); a run
# that was interrupted (no records.parquet yet) and whose inputs are all older than its
# config.yaml resumes from its finished chunks.
# Runs, their baselines and weights: make needs them to write the rules (plain `key: value` lines).
RUN_CONFIGS := $(sort $(wildcard configs/$(PROFILE)/*.yaml))
RUNS        := $(basename $(notdir $(RUN_CONFIGS)))
cfg_value    = $(strip $(shell sed -n "s/^ *$(2): *\([^ #]*\).*/\1/p" configs/$(PROFILE)/$(1).yaml))
run_baselines = $(subst $(comma), ,$(call cfg_value,$(1),baselines))
run_weights  = $(if $(call cfg_value,$(1),weights),models/$(call cfg_value,$(1),weights).gguf $(LLAMA_STAMP))

# Notebooks: the chapters listed in book/_toc.yml (content/<name>), in book order.
# BOOK_DIR: the jupyter-book source directory (profile official: its own, see mk/official.mk).
BOOK_DIR    ?= book
ifndef NOTEBOOKS
NOTEBOOKS   := $(shell sed -n 's|^ *- file: content/\([A-Za-z0-9_]*\).*|\1|p' book/_toc.yml)
endif
NB_OUT      := $(NOTEBOOKS:%=$(BOOK_DIR)/content/%.ipynb)
BOOK_PAGES  ?= book/_config.yml book/_toc.yml $(wildcard book/*.md) book/references.bib
BOOK_HTML   := $(BOOK_DIR)/_build/html/index.html

# The commands read their section of configs/$(PROFILE)/<run>.yaml themselves (--config); SET
# passes `evaluate.k=v` / `score.k=v` on as --set k=v of that command.
$(if $(filter-out evaluate.% score.%,$(SET)),$(error SET: $(filter-out evaluate.% score.%,$(SET)) is not evaluate.<key> or score.<key>))
set_flags    = $(patsubst $(1).%,--set %,$(filter $(1).%,$(SET)))

define RUN_RULES
$(RES)/runs/$(1)/records.parquet: configs/$(PROFILE)/$(1).yaml $(RES)/params/SET.evaluate $(DIALOGUES) $(KB_MANIFEST) $(RUN_SRC) $(call run_weights,$(1)) | $(STAMP)
	@if [ -f $$@ ] || [ ! -f $$(@D)/config.yaml ] || [ -n "$$$$(find $$^ -newer $$(@D)/config.yaml -print -quit)" ]; \
	  then rm -rf $$(@D); fi
	mkdir -p $$(@D)
	$(TOOL) timed $(RES)/timings/run-$(1).json run/$(1) -- $(TRACE) evaluate --config $$< --kb $(KB_DIR) --dialogues $(DIALOGUES) $(call set_flags,evaluate) --out $$(@D)

$(RES)/scores/$(1)/%.json: $(RES)/runs/$(1)/records.parquet configs/$(PROFILE)/$(1).yaml $(RES)/params/SET.score $(SCORE_SRC)
	mkdir -p $$(@D)
	$(TOOL) timed $(RES)/timings/score-$(1)-$$*.json score/$(1)/$$* -- $(TRACE) score --kb $(KB_DIR) --dialogues $(DIALOGUES) --predictions $(RES)/runs/$(1)/predictions/$$*.jsonl --dialogue-ids $(RES)/runs/$(1)/dialogue_ids.json --config configs/$(PROFILE)/$(1).yaml $(call set_flags,score) --out $$@

SCORES += $(patsubst %,$(RES)/scores/$(1)/%.json,$(call run_baselines,$(1)))
endef
SCORES :=
$(foreach r,$(RUNS),$(eval $(call RUN_RULES,$(r))))

$(RES)/.done: $(SCORES)
	touch $@

# PARAMS and PROFILE as files whose content (not mtime) says what changed: rewritten only on change.
$(RES)/params/PARAMS: FORCE | $(STAMP)
	@mkdir -p $(@D)
	$(if $(strip $(PARAMS)),$(TOOL) check-params '$(PARAMS)' $(NOTEBOOKS:%=notebooks/%.py))
	@echo '$(PARAMS)' > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

$(RES)/params/SET.%: FORCE
	@mkdir -p $(@D)
	@echo '$(filter $*.%,$(SET))' > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

$(BOOK_DIR)/_build/.content-profile: FORCE
	@mkdir -p $(@D)
	@echo '$(PROFILE)' > $@.tmp; cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# Defaults live in the notebook's parameters cell; params/<profile>/<name>.yaml (optional) overrides.
.SECONDEXPANSION:
$(RES)/params/%.yaml: notebooks/%.py $$(wildcard params/$(PROFILE)/$$*.yaml) $(RES)/params/PARAMS
	$(TOOL) params $< '$(wildcard params/$(PROFILE)/$*.yaml)' '$(PARAMS)' $@
.SECONDARY: $(NOTEBOOKS:%=$(RES)/params/%.yaml) $(RES)/params/SET.evaluate $(RES)/params/SET.score

# Each run, score and notebook step records its wall time in $(RES)/timings/<step>.json.
# jupytext → papermill (from the repo root, so notebooks see results/ and figures/ as relative paths).
$(BOOK_DIR)/content/%.ipynb: notebooks/%.py $(RES)/params/%.yaml $(SRC) $(RES)/.done $(BOOK_DIR)/_build/.content-profile
	mkdir -p figures $(RES)/tables $(@D)
	$(VENV)/bin/jupytext --quiet --set-kernel python3 --to ipynb --output $(@D)/.$*.src.ipynb $<
	$(TOOL) timed $(RES)/timings/notebook-$*.json notebook/$* -- $(VENV)/bin/papermill --cwd . -k python3 --no-progress-bar -f $(RES)/params/$*.yaml \
	  -p results_dir $(RES) $(@D)/.$*.src.ipynb $(@D)/.$*.out.ipynb
	$(TOOL) reader $(@D)/.$*.out.ipynb
	$(call NB_NOTE,$*,$(@D)/.$*.out.ipynb)
	rm $(@D)/.$*.src.ipynb
	mv $(@D)/.$*.out.ipynb $@

# The Reproduce page includes this build's measured time (every step's timing file).
# Re-read every time (written only when its text changes), after the notebooks have run.
BUILD_TIME  := $(BOOK_DIR)/content/build_time.md
BUILD_TIME_CMD = $(PY) -m trace_crs.report.build_time --profile $(PROFILE) --results results/setup $(RES) --out $(BUILD_TIME) --verify data/lm-records/$(PROFILE).verify.json
$(BUILD_TIME): FORCE | $(NB_OUT) $(RES)/.done
	$(BUILD_TIME_CMD)

$(BOOK_HTML): $(NB_OUT) $(BOOK_PAGES) $(RES)/.done $(BUILD_TIME) $(KB_REALISM)
	$(VENV)/bin/jupyter-book build -W -q $(BOOK_DIR)
	$(TOOL) check $(NB_OUT)
	touch $@

paper: $(BOOK_HTML) ## regenerate every table and figure and build the book (book/_build/html/index.html)

# Every step of `make paper` that calls an LLM, before the rest of the book: the runs with local
# weights and their scores, the unsolvable set, Table 28's judges, the live LLM run and the live
# judges, judge validity. The long computation behind a profile's LM records (issue 45), resumable:
# a killed step replays the calls it had recorded. `make -k PROFILE=default lm-steps`, then `make paper`.
LLM_RUNS    := $(foreach r,$(RUNS),$(if $(call cfg_value,$(r),weights),$(r)))
LM_STEPS    := $(foreach r,$(LLM_RUNS),$(patsubst %,$(RES)/scores/$(r)/%.json,$(call run_baselines,$(r)))) \
  abstention-llm judge-likert live-llm judge-live $(if $(JUDGE_LIVE_ON),judge-live-ask) $(if $(JV_ON),judge-validity)
lm-steps: $(LM_STEPS) ## only the steps of make paper that call an LLM (resumable; LM records appended)
.PHONY: lm-steps

results: $(RES)/.done ## KB, dialogues, every run and score (results/$(PROFILE)/), no notebooks

notebooks: $(NB_OUT) ## execute every notebook into book/content/ (papermill)

book: $(KB_REALISM) | $(STAMP) ## rebuild the HTML book from the existing book/content/ (no notebook execution)
	$(BUILD_TIME_CMD)
	$(VENV)/bin/jupyter-book build -W -q $(BOOK_DIR)
	$(TOOL) check $(wildcard $(BOOK_DIR)/content/*.ipynb)

smoke-book: ## the whole paper chain on the smoke profile (tiny KB, few dialogues; what CI runs)
	$(MAKE) PROFILE=smoke paper

.PHONY: paper results notebooks book smoke-book FORCE
FORCE:

# Human evaluation (App. K): `make paper HUMAN_LABELS=labels.jsonl HUMAN_KEY=key.jsonl` analyses
# the labels of a study (`trace-crs human agree`) into $(RES)/human/ for the "Human evaluation"
# page. The smoke profile points at the test fixture's simulated annotators (tests/fixtures/human);
# the analysis then records source=simulated and the page says these are not a study.
HUMAN_FIXTURE := tests/fixtures/human/labels.jsonl
ifeq ($(PROFILE),smoke)
HUMAN_LABELS ?= $(HUMAN_FIXTURE)
HUMAN_KEY    ?= tests/fixtures/human/key.jsonl
endif
HUMAN_SOURCE ?= $(if $(filter $(HUMAN_FIXTURE),$(HUMAN_LABELS)),simulated,study)
HUMAN_NBOOT  ?= 1000
# What the page is built from, as a file whose content (not mtime) says what changed: the paths,
# the sha256 of the labels and key, the source and n_boot. Another labels file (even an older one)
# re-runs the analysis and the page; without HUMAN_LABELS an earlier analysis in $(RES)/human/ is
# removed, so the page shows the paper's tables only and never a stale "ours".
HUMAN_STAMP  := $(RES)/params/HUMAN
$(HUMAN_STAMP): FORCE
	@mkdir -p $(@D)
	@{ echo 'labels=$(HUMAN_LABELS) key=$(HUMAN_KEY) source=$(HUMAN_SOURCE) n_boot=$(HUMAN_NBOOT)'; \
	  $(if $(strip $(HUMAN_LABELS)),sha256sum $(HUMAN_LABELS) $(HUMAN_KEY);) } > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
	$(if $(strip $(HUMAN_LABELS)),,@if [ -d $(RES)/human ]; then echo "no HUMAN_LABELS: removing the earlier analysis $(RES)/human/"; rm -rf $(RES)/human; fi)

book/content/human_eval.ipynb: $(HUMAN_STAMP)
ifneq ($(strip $(HUMAN_LABELS)),)
$(RES)/human/summary.json: $(HUMAN_STAMP) $(HUMAN_LABELS) $(HUMAN_KEY) $(filter src/trace_crs/human/% src/trace_crs/stats/%,$(SRC)) src/trace_crs/cli/human.py | $(STAMP)
	$(TRACE) human agree --labels $(HUMAN_LABELS) $(if $(HUMAN_KEY),--key $(HUMAN_KEY)) --source $(HUMAN_SOURCE) \
	  --n-boot $(HUMAN_NBOOT) --seed 42 --quiet --out $(@D)

book/content/human_eval.ipynb: $(RES)/human/summary.json
endif

# Screenshots of Task 1 and Task 2 for the page: the real tool on invented demonstration items,
# in Debian's headless Chromium (trace_crs.human.screens). Generated, never committed (figures/
# is gitignored): byte-identical on re-runs with the same Chromium and fonts.
HUMAN_DEMO    := tests/fixtures/human/demo_items.jsonl
HUMAN_SCREENS := figures/human_task1.png figures/human_task2.png
$(HUMAN_SCREENS) &: $(HUMAN_DEMO) $(filter src/trace_crs/human/%,$(SRC)) $(wildcard src/trace_crs/human/web/*) | $(STAMP) $(CHROMIUM_STAMP)
	$(PY) -m trace_crs.human.screens --items $(HUMAN_DEMO) --chromium $(CHROMIUM) --out-dir figures

book/content/human_eval.ipynb: $(HUMAN_SCREENS)

human-screens: $(HUMAN_SCREENS) ## screenshots of the two annotation tasks (figures/human_task*.png) for the Human evaluation page

.PHONY: human human-screens
human: $(HUMAN_STAMP) $(if $(strip $(HUMAN_LABELS)),$(RES)/human/summary.json) ## Tables 10-15 twins from HUMAN_LABELS (+ HUMAN_KEY) into results/$(PROFILE)/human/

# Figure 3 draws make's own dependency graph of `make paper` (trace_crs.report.f03_pipeline):
# a changed makefile, run config or chapter list re-executes that page.
$(BOOK_DIR)/content/f03_pipeline.ipynb: $(MAKEFILE_LIST) $(RUN_CONFIGS) book/_toc.yml

# The Performance page renders the committed `make bench` results (bench/results/*.json).
$(BOOK_DIR)/content/performance.ipynb: $(wildcard bench/results/*.json)
