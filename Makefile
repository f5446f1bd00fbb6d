# One command sets up and runs each job on a fresh machine: `make lab`, `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg

# One lock (uv.lock) is the source of every version that `make test`, `make lab`, CI and Binder
# install; pyproject.toml keeps ranges for people who `pip install oo_nb`. uv itself is pinned
# here and lives in its own small venv, so that syncing .venv to the lock never removes it.
UV_VERSION := 0.13.9
UV_HOME := .tools/uv-$(UV_VERSION)
UV := $(UV_HOME)/bin/uv
export UV_PYTHON_DOWNLOADS := never
export OO_UV := $(abspath $(UV))  # tests/test_lock.py exports the lock with the same uv
# The environment `make test`, `make lab` and `make docs` share: these extras, nothing else.
SYNC := sync --locked --python $(PYTHON) --extra test --extra lab --extra docs
BINDER_EXPORT := export --frozen --no-hashes --no-dev --extra lab --extra nbval

.PHONY: venv lab test test-fast lint browser bench reliability mutate mutate-each clean lock-upgrade \
	test-bounds binder-requirements notebooks docs

$(UV):
	$(PYTHON) -m venv $(UV_HOME)
	$(UV_HOME)/bin/python -m pip install -q 'uv==$(UV_VERSION)'

$(STAMP): pyproject.toml uv.lock | $(UV)
	$(UV) $(SYNC) -q
	touch $(STAMP)

venv: $(STAMP)

# Binder installs binder/requirements.txt, written from the lock (a test checks they agree).
binder-requirements: | $(UV)
	$(UV) $(BINDER_EXPORT) -q -o binder/requirements.txt

# Moves every locked version forward as one commit, made only when the whole suite passes.
lock-upgrade: | $(UV)
	@bash scripts/lock-upgrade.sh "$(UV)"

# The unit suite at the lowest versions pyproject allows and at the newest releases, each in a
# scratch environment (not in CI: landing must not depend on the day's releases).
test-bounds: | $(UV)
	@bash scripts/test-bounds.sh "$(UV)" "$(PYTHON)"

# Chromium from Debian's packages for the browser tests (never `playwright install`).
browser:
	@bash scripts/ensure-chromium.sh

LINTED := oo_nb tests benchmarks tools conftest.py docs/conf.py docs/_ext

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

# Saved notebook outputs made again (nbval compares them), on the suite's own settings folders.
notebooks: $(STAMP)
	PYTHONPATH=. $(PY) tools/execute_notebooks.py

# The reference in docs/ as HTML in docs/_build/html (warnings are errors, every cross-reference
# must resolve); tests/test_docs.py builds it the same way, and runs its examples, in make test.
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W -n --keep-going -q -b html docs docs/_build/html
	@echo "make docs: open docs/_build/html/index.html"

# Benchmarks and tools import the test helpers (tests/support) from the repository root.
bench: $(STAMP)
	@for b in benchmarks/*.py; do echo "== $$b"; PYTHONPATH=. $(PY) $$b || exit 1; done

reliability: $(STAMP)
	PYTHONPATH=. $(PY) benchmarks/reliability.py

# Mutation testing of the modules where a bug costs data, money or safety ([tool.mutmut] in
# pyproject.toml); not in CI. `make mutate MUTANTS='oo_nb.store.*'` runs a subset.
MUTANTS ?=
mutate: $(STAMP)
	$(UV) $(SYNC) -q --group mutate
	$(VENV)/bin/mutmut run $(MUTANTS) || true
	$(PY) tools/mutation_report.py --mutmut $(VENV)/bin/mutmut --survivors

# Each module of [tool.oo_nb_mutate.tests] against only its own tests, one worker, in scratch
# copies under /tmp/oo-mutate: `make mutate-each MODULES=oo_nb/agent/clean.py` runs one.
MODULES ?=
mutate-each: $(STAMP)
	$(UV) $(SYNC) -q --group mutate
	$(PY) tools/mutate_each.py $(MODULES)

clean:
	rm -rf $(VENV) .tools .pytest_cache .mypy_cache .ruff_cache mutants docs/_build
