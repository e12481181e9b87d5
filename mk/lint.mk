# Habits (STYLE.md): ruff (lint + format check) and mypy on src/; both configured in pyproject.toml.
# `make test` runs `lint` first (fast, clean on src/). `typecheck` is separate until src/ is mypy-clean:
# it still reports errors (mostly Optional narrowing and pandas/matplotlib typing), so it would fail every test run.
.PHONY: lint typecheck
lint: ## ruff check and ruff format --check on src/ (fast; `make test` runs it first)
	$(VENV)/bin/ruff check src
	$(VENV)/bin/ruff format --check src

typecheck: ## mypy on src/ (not yet clean: not part of `make test`)
	$(VENV)/bin/mypy
