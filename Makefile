# The two commands of the README. Each bootstraps .venv by itself on a fresh machine.
# Any Python 3.11 or newer (Debian 12's own /usr/bin/python3, 3.11.2, is the oldest CI proves).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test pytest conformance installed-check lint typecheck venv clean docs docs-serve

# pytest-xdist workers for `make test` (and so for .ci/run). More workers than the CI machine's
# two cores on purpose: most tests wait (for servers, subprocesses, a real browser, a guard's
# Retry-After), so four workers keep both cores busy. Tests are handed out one by one, longest
# first; modules that must stay on one worker are listed in tests/conftest.py (ONE_WORKER,
# with the reason). `make test PYTEST_ARGS=` runs sequentially.
PYTEST_ARGS ?= -n 4

# setuptools announces every editable install with a warning box ("Editable installation. ...
# folders with the same name as your package"), which pip shows even with --quiet. Only that
# one message is ignored: any other warning and every error still show.
QUIET_EDITABLE := PYTHONWARNINGS='ignore:Editable installation:UserWarning'

venv: $(STAMP)

# Reinstall only when the declared or pinned dependencies change.
$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "mb-oauth needs Python 3.11 or newer; $(PYTHON) is not: run make PYTHON=/path/to/python3.11 ..."; \
	  exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# pytest alone on the files of FILES, with the same workers (.ci/run's first pass).
pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS) $(FILES)

# `make conformance CONFORMANCE_PORT=8443` serves the bundled server on that port (default: a
# free one); CONFORMANCE_ARGS go to mb-oauth-conformance as they are.
conformance: $(STAMP)
	$(BIN)/mb-oauth-conformance $(if $(CONFORMANCE_PORT),--port $(CONFORMANCE_PORT)) $(CONFORMANCE_ARGS)

# The built wheel installed in a fresh venv, its server and whole suite run outside the checkout.
installed-check:
	tools/installed_check.sh $(PYTHON)

typecheck: $(STAMP)
	$(BIN)/python -m mypy

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The documentation site (mkdocs.yml) in site/, strict: a broken link stops it.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --quiet

docs-serve: $(STAMP)
	$(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) reports build site *.egg-info
