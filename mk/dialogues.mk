# The dialogue corpus (paper §2; ARCHITECTURE §2): simulated generator by default (offline, deterministic).
#   make dialogues                 -> data/dialogues/$(PROFILE)/dialogues.jsonl (+ dialogues.splits/, stats.json, leakage.json)
#   make dialogues PROFILE=smoke   -> 60 dialogues
KB_DIR          ?= data/kb/$(PROFILE)
DIALOGUES       := data/dialogues/$(PROFILE)/dialogues.jsonl
N_DIALOGUES     := $(if $(filter smoke,$(PROFILE)),60,10000)
DIALOGUE_SOURCES := $(sort $(wildcard src/trace_crs/dialogues/*.py src/trace_crs/dialogues/*.json src/trace_crs/dialogues/data/*)) src/trace_crs/cli/dialogues.py src/trace_crs/cli/dialogues_generate.py

DIALOGUES_TIMED = $(PY) book/tools/pipeline.py timed results/$(PROFILE)/timings/dialogues-$(1).json dialogues/$(1) -- $(VENV)/bin/trace-crs dialogues

ifneq ($(PROFILE),official)  # official: the corpus comes from `trace-crs release import` (mk/official.mk)
$(DIALOGUES): $(KB_DIR)/MANIFEST.json $(DIALOGUE_SOURCES) | $(STAMP)
	mkdir -p $(@D)
	$(call DIALOGUES_TIMED,generate) generate --kb $(KB_DIR) --n $(N_DIALOGUES) --generator simulated --seed $(SEED) --out $@
	$(call DIALOGUES_TIMED,validate) validate $@ --kb $(KB_DIR)
	$(call DIALOGUES_TIMED,stats) stats $@ --kb $(KB_DIR) --json $(@D)/stats.json
	$(call DIALOGUES_TIMED,leakage) leakage $@ --kb $(KB_DIR) --seed $(SEED) --json $(@D)/leakage.json
endif

dialogues: $(DIALOGUES) ## generate + validate the dialogue corpus (simulated; PROFILE=smoke for 60)

.PHONY: dialogues
