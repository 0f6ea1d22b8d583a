# One command serves the site, one runs every test; both build .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Silence the end-of-life banners of Material and of a plugin's ProperDocs notice.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
export PYTHONHASHSEED := 0
# The numerical code paths (MKL, ATen, oneDNN, threads) are pinned by coursekit itself,
# in every process that runs blocks, not here: see coursekit/numerics.py.

# The older PyTorch whose outputs the version notes show (mkdocs.yml: version_notes).
OLD_TORCH ?= 2.13.0
OLD_VENV := .venv-torch-$(OLD_TORCH)

.PHONY: serve build test record older older-check notebooks bench audit lint clean

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

# The site's dependencies beside an older torch, with the project itself (editable).
$(OLD_VENV)/.deps: pyproject.toml
	$(PYTHON) -m venv $(OLD_VENV)
	$(OLD_VENV)/bin/pip install --quiet --upgrade pip
	$(PYTHON) scripts/requirements.py --without torch --extra test \
	  | $(OLD_VENV)/bin/pip install --quiet torch==$(OLD_TORCH) -r /dev/stdin
	$(OLD_VENV)/bin/pip install --quiet --no-deps -e .
	touch $@

# Every block runs: one marked changed= must print the older record, every other one
# today's record (a block whose output changed at an upgrade needs a version note).
older: $(OLD_VENV)/.deps  ## record what OLD_TORCH prints for the blocks marked changed= (version notes)
	$(OLD_VENV)/bin/python -m pytest docs --older --record-outputs -p no:randomly -n 0
	git --no-pager diff --stat -- tests/older_outputs

# The claim checks (tests/maths) too: one whose verdict differs on OLD_TORCH must name a
# version note of its page (tests/harness/claims.py).
# The chapter notebooks whose output depends on the release run in a kernel of OLD_TORCH.
older-check: $(OLD_VENV)/.deps  ## every block, claim check and noted notebook on OLD_TORCH (weekly)
	$(OLD_VENV)/bin/python -m pytest docs tests/maths \
	  tests/test_notebooks.py::test_chapter_notebook_prints_the_recorded_outputs \
	  --older -p no:randomly -n 0

notebooks: $(VENV)/.site-deps  ## regenerate the committed exercise and chapter notebooks
	$(BIN)/python -m coursekit notebooks

bench: $(VENV)/.test-deps  ## cold build, prose- and code-edit rebuilds vs. the floor, test-suite time (ARGS=--no-tests)
	$(BIN)/python scripts/bench.py $(ARGS)

audit: $(VENV)/.test-deps  ## Lighthouse on every page, served like GitHub Pages (needs Chromium, nginx, npm)
	$(BIN)/python scripts/audit.py

lint: $(VENV)/.test-deps  ## ruff lint and format check, mypy on coursekit/, its import contracts
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy && $(BIN)/lint-imports --no-cache

clean:
	rm -rf site .cache
