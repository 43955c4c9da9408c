# One command per chore. Each target creates .venv itself when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# The exact versions the tests run against; pyproject.toml only declares compatible ranges.
LOCK := requirements-dev.lock
LOCK_TOOLS := .venv-lock
# What `make demo` installs: every extra the README's examples use, so each of them runs
# from the state the README's two commands leave (tests/packaging checks this).
DEMO_EXTRAS := providers,mcp,telemetry,durable

.PHONY: demo test lint typecheck pytest bench format clean lock fresh-clone-test fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[$(DEMO_EXTRAS)]"
	touch $@

$(DEV_STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/pip install --quiet -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps -e .
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

# `make bench BENCH=soak` runs only the soak (10,000 sessions per entry point; SOAK_SESSIONS=N).
bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH)

# The shell analyser's differential fuzzer: FUZZ_SECONDS of generated commands, every
# approved one run in bubblewrap under strace (needs: apt-get install bubblewrap strace).
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= 1
fuzz: $(DEV_STAMP)
	cd tests && ../$(BIN)/python -m shell_fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)

format: $(DEV_STAMP)
	$(BIN)/ruff format src tests benchmarks examples
	$(BIN)/ruff check --fix src tests benchmarks examples

# Re-resolve the lock after a change to the ranges in pyproject.toml (keeps the versions
# already locked where they still fit; add --upgrade to move to the newest).
lock:
	test -x $(LOCK_TOOLS)/bin/pip-compile || \
		($(PYTHON) -m venv $(LOCK_TOOLS) && $(LOCK_TOOLS)/bin/pip install --quiet pip-tools)
	$(LOCK_TOOLS)/bin/pip-compile --quiet --extra dev --strip-extras --allow-unsafe \
		--no-emit-find-links --no-emit-index-url --output-file $(LOCK) pyproject.toml

# `make test` from a fresh clone of the committed tree with bubblewrap hidden: what a
# newcomer without bubblewrap gets (the sandbox tests must be reported as skipped).
fresh-clone-test:
	bash scripts/fresh-clone-test.sh

clean:
	rm -rf $(VENV) $(LOCK_TOOLS) .pytest_cache .ruff_cache
