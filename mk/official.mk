# The paper's own corpus (paper §2.1 Release, Appendices D and H): import the official release,
# hydrate its [Q:N] spans from your Yelp bundle, and run the chain on it (profile `official`).
#   make paper DATASET=official RELEASE_DIR=/path/release YELP_DIR=/path/yelp
#     RELEASE_DIR: crs_dataset.json, poi_knowledge_base.json, splits/test_dialogue_ids.json
#     YELP_DIR:    yelp_academic_dataset_{business,review}.json (the Yelp Open Dataset)
#   make release-import DATASET=official ...   only the import: data/dialogues/official/
# The imported corpus lives where every profile's corpus lives (data/dialogues/official/, with
# kb/ and mapping_report.json beside it; data/kb/official links to that kb/), so the run, judge,
# live and abstention rules need no special case.  Runs: configs/official/ (the LLM rows are
# plumbing-sized there, as in smoke; use configs/default's subset and weights for the real release).
# Try it on the hand-made fixtures (invented text, not the real release):
#   make paper DATASET=official RELEASE_DIR=tests/fixtures/release YELP_DIR=tests/fixtures/release/yelp
RELEASE_DIR    ?=
RELEASE_SRC    := $(sort $(wildcard src/trace_crs/release/*.py src/trace_crs/dialogues/*.py src/trace_crs/kb/*.py)) src/trace_crs/cli/release.py

ifeq ($(PROFILE),official)
RELEASE_INPUTS := $(RELEASE_DIR)/crs_dataset.json $(RELEASE_DIR)/poi_knowledge_base.json \
                  $(wildcard $(RELEASE_DIR)/splits/*_dialogue_ids.json) \
                  $(YELP_DIR)/yelp_academic_dataset_business.json $(YELP_DIR)/yelp_academic_dataset_review.json

data/dialogues/official/dialogues.jsonl: $(RELEASE_INPUTS) $(RELEASE_SRC) | $(STAMP)
	$(if $(and $(RELEASE_DIR),$(YELP_DIR)),,$(error DATASET=official needs RELEASE_DIR=<release dir> and YELP_DIR=<Yelp bundle dir>))
	$(PY) book/tools/pipeline.py timed results/official/timings/release-import.json release/import -- \
	  $(VENV)/bin/trace-crs --quiet release import --dataset $(RELEASE_DIR)/crs_dataset.json \
	  --pois $(RELEASE_DIR)/poi_knowledge_base.json --splits $(RELEASE_DIR)/splits --yelp-dir $(YELP_DIR) --seed $(SEED) --out $(@D)
	$(call DIALOGUES_TIMED,stats) stats $@ --json $(@D)/stats.json
	$(call DIALOGUES_TIMED,leakage) leakage $@ --kb $(@D)/kb --seed $(SEED) --json $(@D)/leakage.json

data/kb/official/MANIFEST.json: data/dialogues/official/dialogues.jsonl
	mkdir -p data/kb
	ln -sfn ../dialogues/official/kb data/kb/official
	touch $@
endif

release-import: data/dialogues/official/dialogues.jsonl ## import the paper's release (DATASET=official RELEASE_DIR=... YELP_DIR=...)

.PHONY: release-import
