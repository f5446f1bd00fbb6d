# One command sets up and runs each job on a fresh machine: `make lab`, `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg

.PHONY: venv lab test test-fast lint browser bench reliability mutate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip uv
	$(VENV)/bin/uv pip install -q --python $(PY) -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# Chromium from Debian's packages for the browser tests (never `playwright install`).
browser:
	@bash scripts/ensure-chromium.sh

LINTED := oo_nb tests benchmarks tools

lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy

test: $(STAMP) browser lint
	$(PY) -m pytest tests --ignore=tests/browser
	@# Own process: Playwright's sync API keeps an event loop running for the whole session.
	$(PY) -m pytest tests/browser
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then $(PY) -m pytest -p no:cacheprovider $(NBVAL) notebooks/; fi

test-fast: $(STAMP)
	$(PY) -m pytest tests -x -q --ignore=tests/browser

# Jupyter refuses to run as root without --allow-root (CI and these machines run as root).
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	@# Made fresh, or kept as it is when it holds your work (the demo refuses and says why).
	$(PY) -m oo_nb demo notebooks/demo-library --quiet || echo "make lab: notebooks/demo-library kept as it is" >&2
	cd notebooks && ../$(VENV)/bin/jupyter lab $(LAB_FLAGS) 01-quickstart.ipynb

# Benchmarks and tools import the test helpers (tests/support) from the repository root.
bench: $(STAMP)
	@for b in benchmarks/*.py; do echo "== $$b"; PYTHONPATH=. $(PY) $$b || exit 1; done

reliability: $(STAMP)
	PYTHONPATH=. $(PY) benchmarks/reliability.py

# Mutation testing of the modules where a bug costs data, money or safety ([tool.mutmut] in
# pyproject.toml); not in CI. `make mutate MUTANTS='oo_nb.store.*'` runs a subset.
MUTANTS ?=
mutate: $(STAMP)
	$(VENV)/bin/uv pip install -q --python $(PY) 'mutmut>=3.8,<4'
	$(VENV)/bin/mutmut run $(MUTANTS) || true
	$(PY) tools/mutation_report.py --mutmut $(VENV)/bin/mutmut --survivors

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache mutants
