# One command per chore. Each target creates .venv itself when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck pytest bench format clean fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@ $(RUN_STAMP)

demo: $(RUN_STAMP)
	$(BIN)/loopwright demo

test: $(DEV_STAMP)
	$(MAKE) lint typecheck pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/pyright src

pytest: $(DEV_STAMP)
	$(BIN)/pytest

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/run.py

# The shell analyser's differential fuzzer: FUZZ_SECONDS of generated commands, every
# approved one run in bubblewrap under strace (needs: apt-get install bubblewrap strace).
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= 1
fuzz: $(DEV_STAMP)
	cd tests && PATH="$$PATH:/opt/bwrap/usr/bin" ../$(BIN)/python -m shell_fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)

format: $(DEV_STAMP)
	$(BIN)/ruff format src tests benchmarks examples
	$(BIN)/ruff check --fix src tests benchmarks examples

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
