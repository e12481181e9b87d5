# Trace compendium. `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:

PYTHON_BOOT ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
STAMP       := $(VENV)/.installed
SRC         := $(shell find src -name '*.py' -o -name '*.yaml' -o -name '*.json' | sort)
SEED        ?= 42
# DATASET=official: the paper's own release, imported (mk/official.mk)
PROFILE     ?= $(if $(filter official,$(DATASET)),official,default)
TEST_DEPS   :=

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export TOKENIZERS_PARALLELISM := false
export PYTHONHASHSEED := 0
# One name per top-level `make` (sub-makes inherit it): each step's timing record carries it, so
# the Reproduce page can tell one build from nothing from steps left by several builds.
ifndef TRACE_BUILD
export TRACE_BUILD := $(shell date -u +%Y%m%dT%H%M%SZ)-$(shell echo $$PPID)
endif

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_.%-]+:.*## ' $(MAKEFILE_LIST) | sort | awk 'BEGIN {FS = ":.*## "} {printf "  %-16s %s\n", $$1, $$2}'

venv: $(STAMP) ## create .venv and install the pinned requirements (torch CPU wheel first)

# Set-up steps record their wall time in results/setup/timings/ (the Reproduce page's build time).
SETUP_TIMED = $(PYTHON_BOOT) book/tools/pipeline.py timed results/setup/timings/$(1).json setup/$(1) --

$(STAMP): requirements.txt pyproject.toml
	$(call SETUP_TIMED,venv) bash -eu -o pipefail -c '\
	  test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV); \
	  $(PY) -m pip install -q --upgrade pip; \
	  $(PY) -m pip install -q torch==2.13.0; \
	  $(PY) -m pip install -q -r requirements.txt; \
	  $(PY) -m pip install -q --no-deps -e .'
	touch $@

include $(sort $(wildcard mk/*.mk))

test: $(STAMP) lint typecheck $(TEST_DEPS) ## lint, typecheck, run the test suite, then build the smoke book
	$(PY) -m pytest -q tests
	$(MAKE) smoke-book
	$(MAKE) official-book
	$(MAKE) PROFILE=smoke browser-check

clean: ## remove generated data, results and the built book (keeps .venv and models)
	rm -rf data/kb data/dialogues results book/_build book/content/*.ipynb figures/*.png figures/*.svg build/official-book

.PHONY: help venv test clean
