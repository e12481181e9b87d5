# The paper's own corpus (paper §2.1 Release, Appendices D and H): import the official release,
# hydrate its [Q:N] spans from your Yelp bundle, and run the chain on it (profile `official`).
#   make paper DATASET=official RELEASE_DIR=/path/release YELP_DIR=/path/yelp
#     RELEASE_DIR: crs_dataset.json, poi_knowledge_base.json, splits/test_dialogue_ids.json
#     YELP_DIR:    yelp_academic_dataset_{business,review}.json (the Yelp Open Dataset)
#   make release-import DATASET=official ...   only the import: data/dialogues/official/
# The imported corpus lives where every profile's corpus lives (data/dialogues/official/, with
# kb/ and mapping_report.json beside it; data/kb/official links to that kb/), so the run, judge,
# live and abstention rules need no special case.  Runs: configs/official/ holds the non-LLM runs
# (closed, open); for the LLM rows on the real release copy configs/default/closed_llm.yaml there.
# Try it on the hand-made fixtures (invented text, not the real release):
#   make paper DATASET=official RELEASE_DIR=tests/fixtures/release YELP_DIR=tests/fixtures/release/yelp
RELEASE_DIR    ?=
RELEASE_SRC    := $(filter-out src/trace_crs/release/pages.py,$(sort $(wildcard src/trace_crs/release/*.py src/trace_crs/dialogues/*.py src/trace_crs/kb/*.py))) src/trace_crs/cli/release.py

ifeq ($(PROFILE),official)
RELEASE_INPUTS := $(RELEASE_DIR)/crs_dataset.json $(RELEASE_DIR)/poi_knowledge_base.json \
                  $(wildcard $(RELEASE_DIR)/splits/*_dialogue_ids.json) \
                  $(YELP_DIR)/yelp_academic_dataset_business.json $(YELP_DIR)/yelp_academic_dataset_review.json

data/dialogues/official/dialogues.jsonl: $(RELEASE_INPUTS) $(RELEASE_SRC) | $(STAMP)
	$(if $(and $(RELEASE_DIR),$(YELP_DIR)),,$(error DATASET=official needs RELEASE_DIR=<release dir> and YELP_DIR=<Yelp bundle dir>))
	$(PY) book/tools/pipeline.py timed results/official/timings/release-import.json release/import -- \
	  $(VENV)/bin/trace-crs --quiet release import --dataset $(RELEASE_DIR)/crs_dataset.json \
	  --pois $(RELEASE_DIR)/poi_knowledge_base.json --splits $(RELEASE_DIR)/splits --yelp-dir $(YELP_DIR) --seed $(SEED) --out $(@D)
	$(call DIALOGUES_TIMED,stats) stats $@ --kb $(@D)/kb --json $(@D)/stats.json
	$(call DIALOGUES_TIMED,leakage) leakage $@ --kb $(@D)/kb --seed $(SEED) --json $(@D)/leakage.json

data/kb/official/MANIFEST.json: data/dialogues/official/dialogues.jsonl
	mkdir -p data/kb
	ln -sfn ../dialogues/official/kb data/kb/official
	touch $@

# The official book is its own jupyter-book source directory (trace_crs.release.pages): the book's
# pages, a toc with only the chapters the release can feed, a page listing the others and why, and
# on each chapter a note of the release fields it could not use. Nothing is shared with the smoke or
# default book (book/content, book/_build), so building one never touches the other.
MAPPING_REPORT := data/dialogues/official/mapping_report.json
BOOK_DIR       := build/official-book
NOTEBOOKS      := $(shell $(PY) -m trace_crs.release.pages list 2>/dev/null)
BOOK_PAGES     := $(BOOK_DIR)/_toc.yml
NB_NOTE         = $(PY) -m trace_crs.release.pages note --page $(1) --report $(MAPPING_REPORT) --notebook $(2) --out $(2).noted && mv $(2).noted $(2)

$(MAPPING_REPORT): data/dialogues/official/dialogues.jsonl

$(BOOK_DIR)/_toc.yml: book/_toc.yml book/_config.yml $(wildcard book/*.md book/_ext/*.py book/_static/*) book/references.bib \
                      src/trace_crs/release/pages.py $(MAPPING_REPORT) | $(STAMP)
	$(PY) -m trace_crs.release.pages assemble --src book --report $(MAPPING_REPORT) --out $(@D)

$(NOTEBOOKS:%=$(BOOK_DIR)/content/%.ipynb): $(MAPPING_REPORT)
endif

release-import: data/dialogues/official/dialogues.jsonl ## import the paper's release (DATASET=official RELEASE_DIR=... YELP_DIR=...)

official-book: ## the paper chain on the hand-made release fixtures (build/official-book/; CI runs it after the smoke book)
	$(MAKE) DATASET=official RELEASE_DIR=tests/fixtures/release YELP_DIR=tests/fixtures/release/yelp paper

.PHONY: release-import official-book
