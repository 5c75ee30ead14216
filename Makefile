# chaodipi: make run | make test | make bench
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 8000
DB ?= sqlite:///chaodipi.db
# The browser tests drive Debian's chromium (browser downloads do not work everywhere).
CHROMIUM ?= /usr/bin/chromium
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared
PRESET ?= standard
SEED ?= 1

FAST := .venv-fast
FAST_BIN := $(FAST)/bin
FAST_STAMP := $(FAST)/.installed
ENGINE_SOURCES := $(shell find src/chaodipi -name '*.py')

.PHONY: run selfplay test soak bench lint typecheck unit unit-fast fast referee browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The optional compiled build (issue 13): mypyc compiles the engine (setup.py names the modules) to C
# extensions, installed NOT editable in its own venv, $(FAST), so that nothing imports the sources in src/.
# mypy (which ships mypyc) must be in that venv to build, hence --no-build-isolation. build/ is removed
# before and after, so that no stale extension slips into a later wheel.
$(FAST_STAMP): pyproject.toml setup.py $(ENGINE_SOURCES)
	$(PYTHON) -m venv $(FAST)
	$(FAST_BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=68' wheel 'mypy>=1.10'
	rm -rf build
	CHAODIPI_COMPILE=1 $(FAST_BIN)/python -m pip install --quiet --no-build-isolation '.[dev]'
	rm -rf build
	touch $(FAST_STAMP)

fast: $(FAST_STAMP)
	@$(FAST_BIN)/python -c "import chaodipi.play as m; f = m.__file__; print('compiled:', f); assert f.endswith('.so'), f"

# The main job: the game server and its browser client, on an SQLite file beside the project.
run: $(STAMP)
	@echo "chaodipi: starting the server; open http://$(HOST):$(PORT) in a browser (Ctrl+C stops it)"
	$(BIN)/chaodipi serve --host $(HOST) --port $(PORT) --db $(DB)

# A self-play game in the terminal (the main job before the browser client).
selfplay: $(STAMP)
	$(BIN)/chaodipi selfplay --preset $(PRESET) --seed $(SEED)

# Debian's chromium (and CJK fonts, so that screenshots show Chinese) for the browser tests.
browser:
	@if [ -x "$(CHROMIUM)" ]; then echo "browser: $$($(CHROMIUM) --version 2>/dev/null)"; else \
	  echo "browser: installing Debian's chromium for the browser tests"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk >/dev/null; }; \
	  $(CHROMIUM) --version; fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src/chaodipi

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/chaodipi

# The suite on both cores (pytest-xdist; every test makes its own files, ports, schemas and Redis keys), then the
# browser tests one at a time (each drives chromium and a server: two at once would fight for the cores).
unit: $(STAMP) browser
	$(BIN)/pytest -n 2 -p no:cacheprovider --ignore-glob="tests/test_browser*.py"
	CHAODIPI_CHROMIUM=$(CHROMIUM) $(BIN)/pytest -p no:cacheprovider tests/test_browser*.py

# The suite once more on the compiled build, when $(FAST) is there (rebuilt first if the sources changed).
# Only tests/ is given: a path in src/ would put src/ first on sys.path and the pure sources would be
# tested (the doctests in src/ run in `unit`); CHAODIPI_EXPECT_COMPILED=1 makes tests/conftest.py stop at
# once if the engine imported is not compiled. The browser tests (3.5 minutes in chromium) run only in
# `unit`: they test the client, and the server behind them runs the same engine calls as test_server.py;
# so do the platform's (several `chaodipi serve` processes, about 2 minutes: they test processes and Redis).
unit-fast:
	@if [ -d $(FAST) ]; then $(MAKE) --no-print-directory fast && \
	  CHAODIPI_EXPECT_COMPILED=1 $(FAST_BIN)/pytest tests -n 2 -p no:cacheprovider --ignore-glob="tests/test_browser*.py" \
	    --ignore=tests/test_platform.py; \
	else echo "no $(FAST): the compiled build is not tested (make fast builds it)"; fi

# The referee scenarios kept in the repository, with the repository's checker; then, when
# $(SHARED) is beside the project, its scenarios too (they may be newer), with its checker.
CHECKER := tests/scenarios/referee_check.py
referee: $(STAMP)
	@echo "referee scenarios: tests/scenarios"
	@$(BIN)/python $(CHECKER) --cmd "$(BIN)/chaodipi referee" tests/scenarios/*.jsonl
	@if ls $(SHARED)/scenarios/*.jsonl >/dev/null 2>&1; then \
	  checker=$(SHARED)/tools/referee_check.py; [ -f $$checker ] || checker=$(CHECKER); \
	  echo "referee scenarios: $(SHARED)/scenarios"; \
	  $(BIN)/python $$checker --cmd "$(BIN)/chaodipi referee" $(SHARED)/scenarios/*.jsonl; \
	else echo "no $(SHARED)/scenarios: only the scenarios in tests/scenarios were run"; fi

test: lint typecheck referee unit unit-fast

soak: $(STAMP)
	CHAODIPI_SOAK=1 $(BIN)/pytest -m slow -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_hands.py
	$(BIN)/python bench/bench_bots.py
	$(BIN)/python bench/bench_server.py --tables 50 --seconds 20 --ramp 10 --warmup 10
	$(BIN)/python bench/bench_peers.py
	$(BIN)/python bench/bench_tournament.py --time-scale 0.02
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_memory.py
	$(BIN)/python bench/bench_cardsets.py

clean:
	rm -rf $(VENV) $(FAST) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
	find src -name '*.so' -delete
