# dp-erm-verify: `make verify` regenerates reports/, `make test` runs lint + tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: verify test test-all lint clean bench jit

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m simulations.jit
	touch $(STAMP)

verify: $(STAMP)
	$(PY) -m verify

lint: $(STAMP)
	$(PY) -m ruff check bounds simulations verify tests bench conftest.py

test: lint
	$(PY) -m pytest -n auto bounds simulations verify tests docs README.md

test-all: lint
	$(PY) -m pytest -n auto bounds simulations verify tests docs README.md -m "slow or not slow"

jit: $(STAMP)
	$(PY) -m simulations.jit

bench: $(STAMP)
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
