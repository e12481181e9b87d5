# The Deviations page's diagnosis: every variant that tests a cause of a systematic deviation from
# the paper (trace_crs.stats.diagnosis), computed here so that the notebook only reads results:
#   make diagnosis -> results/$(PROFILE)/diagnosis/variants.parquet
# Scoring variants re-score the closed run's predictions (a seeded DIAG_N-dialogue sample); the KB
# attribute-missingness variant re-runs the closed run's baselines on the same dialogues over the KB
# with Yelp's attribute coverage applied (trace-crs kb degrade, kb/missingness.py). The headline
# tables keep the README's definitions; `make paper SET="score.ranked_list=response"` (or
# score.t2r_count=system|all, score.text_reference=unquoted|quotes) makes a variant the ablation of a build.
# Included after paper.mk, kb.mk and dialogues.mk (mk/*.mk sorted), so RES, TRACE, TOOL, KB_DIR, DIALOGUES, RUN_SRC, SCORE_SRC are set.
DIAG_DIR     = $(RES)/diagnosis
DIAG_N      ?= $(if $(filter smoke,$(PROFILE)),60,1000)
MISSING_KB   = data/kb/$(PROFILE)-missing
DIAG_SRC    := src/trace_crs/stats/diagnosis.py src/trace_crs/stats/rescore.py src/trace_crs/kb/missingness.py \
               src/trace_crs/kb/data/attribute_coverage.yaml src/trace_crs/cli/stats.py

$(MISSING_KB)/MANIFEST.json: $(KB_MANIFEST) src/trace_crs/kb/missingness.py src/trace_crs/kb/data/attribute_coverage.yaml | $(STAMP)
	mkdir -p $(RES)/timings
	$(TOOL) timed $(RES)/timings/kb-degrade.json kb/degrade -- $(TRACE) kb degrade --kb $(KB_DIR) --out $(MISSING_KB) --seed $(SEED)

$(RES)/runs/closed_missing/records.parquet: $(MISSING_KB)/MANIFEST.json $(DIALOGUES) $(RUN_SRC) configs/$(PROFILE)/closed.yaml | $(STAMP)
	rm -rf $(RES)/runs/closed_missing
	$(TOOL) timed $(RES)/timings/run-closed_missing.json run/closed_missing -- \
	  $(TRACE) evaluate --config configs/$(PROFILE)/closed.yaml --kb $(MISSING_KB) --dialogues $(DIALOGUES) \
	  --subset $(DIAG_N) --out $(RES)/runs/closed_missing

$(RES)/diagnosis/variants.parquet: $(RES)/runs/closed/records.parquet $(RES)/runs/closed_missing/records.parquet \
    $(KB_MANIFEST) $(DIALOGUES) $(SCORE_SRC) $(DIAG_SRC) | $(STAMP)
	$(TOOL) timed $(RES)/timings/diagnosis.json diagnosis -- \
	  $(TRACE) stats diagnose --results $(RES) --run closed --corpus-runs kb_missingness=closed_missing \
	  --n-dialogues $(DIAG_N) --seed 42 --out $@

book/content/deviations.ipynb: $(RES)/diagnosis/variants.parquet

diagnosis: $(RES)/diagnosis/variants.parquet ## score every variant that tests a cause of a deviation from the paper

.PHONY: diagnosis
