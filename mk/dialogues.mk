# The dialogue corpus (issue 3): simulated generator by default (offline, deterministic).
#   make dialogues                 -> data/dialogues/$(PROFILE)/dialogues.jsonl (+ dialogues.splits/, stats.json, leakage.json)
#   make dialogues PROFILE=smoke   -> 60 dialogues
KB_DIR          ?= data/kb/$(PROFILE)
DIALOGUES       := data/dialogues/$(PROFILE)/dialogues.jsonl
N_DIALOGUES     := $(if $(filter smoke,$(PROFILE)),60,10000)
DIALOGUE_SOURCES := $(sort $(wildcard src/trace_crs/dialogues/*.py src/trace_crs/dialogues/*.json src/trace_crs/dialogues/data/*)) src/trace_crs/cli/dialogues.py

$(DIALOGUES): $(KB_DIR)/MANIFEST.json $(DIALOGUE_SOURCES) | $(STAMP)
	mkdir -p $(@D)
	$(VENV)/bin/trace-crs dialogues generate --kb $(KB_DIR) --n $(N_DIALOGUES) --generator simulated --seed $(SEED) --out $@
	$(VENV)/bin/trace-crs dialogues validate $@ --kb $(KB_DIR)
	$(VENV)/bin/trace-crs dialogues stats $@ --json $(@D)/stats.json
	$(VENV)/bin/trace-crs dialogues leakage $@ --kb $(KB_DIR) --seed $(SEED) --json $(@D)/leakage.json

dialogues: $(DIALOGUES) ## generate + validate the dialogue corpus (simulated; PROFILE=smoke for 60)

.PHONY: dialogues
