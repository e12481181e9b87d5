# LLM records of the profile (src/trace_crs/lm/records.py): every LLM call a build makes is answered
# from data/lm-records/$(PROFILE)/ when recorded there (no model server starts for a block whose
# calls are all recorded) and computed and appended when not.  `LM_RECORDS=off` recomputes
# everything (and records nothing); `LM_RECORDS=DIR` uses another directory.  The directory is
# exported as an absolute TRACE_LM_RECORDS, so it reaches every subprocess and papermill notebook.
# Only "off" is taken from the environment: a sub-make of another PROFILE gets its own directory.
_LM_RECORDS_ENV := $(TRACE_LM_RECORDS)
LM_RECORDS ?= $(if $(filter off,$(_LM_RECORDS_ENV)),off,data/lm-records/$(PROFILE))
export TRACE_LM_RECORDS = $(if $(filter off,$(LM_RECORDS)),off,$(abspath $(LM_RECORDS)))
LM_VERIFY_N   ?= 50
LM_VERIFY_SET ?=# lm config overrides of the model verified, e.g. weights=qwen2.5-coder-0.5b-instruct-q4_k_m

# The test suite never reads or writes a profile's records (CI needs none), and the benchmarks
# time the live backend, never a replay; their sub-makes inherit "off".
test bench bench-draft bench-llama-build bench-llm-scale: export TRACE_LM_RECORDS := off

.PHONY: lm-records-stats lm-records-manifest lm-records-seal lm-records-verify
lm-records-stats: | $(STAMP) ## records per model and step in LM_RECORDS (default data/lm-records/$(PROFILE))
	$(VENV)/bin/trace-crs lm records stats --dir $(LM_RECORDS)

lm-records-manifest: | $(STAMP) ## rewrite LM_RECORDS/MANIFEST.json from its shards (after a kill or a merge)
	$(VENV)/bin/trace-crs lm records manifest --dir $(LM_RECORDS)

lm-records-seal: | $(STAMP) ## rewrite shards cut by a kill as whole gzip files (same records), then the manifest
	$(VENV)/bin/trace-crs lm records seal --dir $(LM_RECORDS)

lm-records-verify: | $(STAMP) ## recompute LM_VERIFY_N seeded records with the live model (LM_VERIFY_SET=k=v ...)
	$(VENV)/bin/trace-crs lm records verify --dir $(LM_RECORDS) --sample $(LM_VERIFY_N) --seed $(SEED) \
	  $(foreach s,$(LM_VERIFY_SET),--set $(s))
