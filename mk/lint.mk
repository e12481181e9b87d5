# Habits (STYLE.md): ruff (lint + format check) and mypy on src/; both configured in pyproject.toml.
# `make test` runs `lint` (fast), then `typecheck` (mypy; clean on src/ — a new error fails the run), then pytest.
# mypy caches in .mypy_cache/: the first run checks all of src/ (minutes on a loaded machine), later runs only what changed.
.PHONY: lint typecheck
lint: ## ruff check and ruff format --check on src/ and bench/ (fast; `make test` runs it first)
	$(VENV)/bin/ruff check src bench
	$(VENV)/bin/ruff format --check src bench

typecheck: ## mypy on src/ (config in pyproject.toml; `make test` runs it after lint)
	$(VENV)/bin/mypy
