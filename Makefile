# One command serves the site, one runs every test; both build .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Silence the end-of-life banners of Material and of a plugin's ProperDocs notice.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
export PYTHONHASHSEED := 0
# The examples are tiny: one thread is faster on a busy 2-core machine, and keeps
# floating-point reductions in one fixed order (the outputs do not depend on it).
export OMP_NUM_THREADS := 1

.PHONY: serve build test record notebooks bench audit lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Re-install only when pyproject.toml changes.
$(VENV)/.site-deps: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.test-deps: pyproject.toml $(VENV)/.site-deps
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

# Restarts when coursekit/ changes (MkDocs never reloads a plugin's code); rebuilds on its own
# when docs/, snippets/ or mkdocs.yml change.
serve: $(VENV)/.site-deps  ## live-reloading site at http://127.0.0.1:8000
	$(BIN)/python -m coursekit.mkdocs_adapter.serve --dev-addr 127.0.0.1:8000

build: $(VENV)/.site-deps  ## strict static build into site/
	$(BIN)/mkdocs build --strict

# On every core (pytest-xdist, `-n auto` in pyproject.toml); the site is built once per run.
test: $(VENV)/.test-deps  ## every test: drift check, bad input, maths, notebooks, quizzes, browser
	$(BIN)/python -m pytest

record: $(VENV)/.test-deps  ## rewrite tests/recorded_outputs.yml after reviewing a drift diff
	$(BIN)/python -m pytest docs --record-outputs -p no:randomly -n 0
	git --no-pager diff --stat -- tests/recorded_outputs.yml

notebooks: $(VENV)/.site-deps  ## regenerate the committed exercise and chapter notebooks
	$(BIN)/python -m coursekit notebooks

bench: $(VENV)/.test-deps  ## cold build, prose- and code-edit rebuilds vs. the floor, test-suite time (ARGS=--no-tests)
	$(BIN)/python scripts/bench.py $(ARGS)

audit: $(VENV)/.test-deps  ## Lighthouse on every page, served like GitHub Pages (needs Chromium, nginx, npm)
	$(BIN)/python scripts/audit.py

lint: $(VENV)/.test-deps  ## ruff lint and format check, mypy on coursekit/
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

clean:
	rm -rf site .cache
