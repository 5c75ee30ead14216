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
# Everything $(FAST) installs a copy of (it is not an editable install): the modules, and the web client's files.
PACKAGE_FILES := $(shell find src/chaodipi -type f ! -path '*/__pycache__/*' ! -name '*.so')

# The build that `make run`, `make selfplay` and `make arena` run: with BUILD=auto (the default) the compiled one
# when $(FAST) is there (rebuilt first, saying so, when a file in src/chaodipi is newer: a stale build is never
# run), else the pure Python one. BUILD=compiled builds $(FAST) when it is missing; BUILD=pure runs $(VENV).
BUILD ?= auto
USE := $(if $(filter auto,$(BUILD)),$(if $(wildcard $(FAST)),compiled,pure),$(BUILD))
ifeq ($(USE),compiled)
USE_BIN := $(FAST_BIN)
USE_STAMP := $(FAST_STAMP)
else ifeq ($(USE),pure)
USE_BIN := $(BIN)
USE_STAMP := $(STAMP)
else
$(error BUILD is auto, compiled or pure, not '$(BUILD)')
endif
# Says which engine build a venv's chaodipi runs, asking it: `chaodipi 0.1.0 (engine: compiled by mypyc)`.
say_engine = $(1)/chaodipi --version

.PHONY: run selfplay arena test test-learn learn train soak bench lint typecheck unit unit-browser unit-fast unit-fast-logged fast referee \
  browser compiler services clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The compiled build (issue 13): mypyc compiles the engine (setup.py names the modules) to C extensions,
# installed NOT editable in its own venv, $(FAST), so that nothing imports the sources in src/. mypy (which
# ships mypyc) must be in that venv to build, hence --no-build-isolation. build/ is removed before and after,
# so that no stale extension slips into a later wheel. From scratch it takes about 2 minutes on 2 cores (the
# C compiler, one file at a time, is most of it); the dependencies come from pip's cache, as for $(VENV).
$(FAST_STAMP): pyproject.toml setup.py $(PACKAGE_FILES) | compiler
	@echo "compiled build: building $(FAST) (mypyc compiles the engine to C: about 2 minutes)"
	$(PYTHON) -m venv $(FAST)
	$(FAST_BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=68' wheel 'mypy>=1.10'
	@# mypyc type-checks what the compiled modules import: make_bot's learned bot (chaodipi.rl) reads numpy and gymnasium
	$(FAST_BIN)/python -m pip install --quiet 'numpy>=1.26' 'gymnasium>=1.0' 'pettingzoo>=1.27,<1.28'
	rm -rf build
	CHAODIPI_COMPILE=1 $(FAST_BIN)/python -m pip install --quiet --no-build-isolation '.[dev]'
	rm -rf build
	touch $(FAST_STAMP)

fast: $(FAST_STAMP)
	@$(FAST_BIN)/python -c "import chaodipi.play as m; f = m.__file__; print('compiled:', f); assert f.endswith('.so'), f"

# The main job: the game server and its browser client, on an SQLite file beside the project.
# (The server's first line says which engine build runs.)
run: $(USE_STAMP)
	@echo "chaodipi: starting the server; open http://$(HOST):$(PORT) in a browser (Ctrl+C stops it)"
	$(USE_BIN)/chaodipi serve --host $(HOST) --port $(PORT) --db $(DB)

# A self-play game in the terminal (the main job before the browser client).
selfplay: $(USE_STAMP)
	@$(call say_engine,$(USE_BIN))
	$(USE_BIN)/chaodipi selfplay --preset $(PRESET) --seed $(SEED)

# Two bots on duplicate deals (docs/bots.md): make arena BOTS="rules search" DEALS=200.
BOTS ?= rules random
DEALS ?= 100
JOBS ?= 2
arena: $(USE_STAMP)
	@$(call say_engine,$(USE_BIN))
	$(USE_BIN)/chaodipi arena $(BOTS) --preset $(PRESET) --deals $(DEALS) --seed $(SEED) --jobs $(JOBS)

# A C compiler and the Python headers, which the compiled build needs: installed with apt (gcc, python3-dev) when
# either is missing, as `browser` installs chromium.
compiler:
	@if command -v cc >/dev/null 2>&1 && [ -f "$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; \
	then :; else \
	  echo "compiled build: installing a C compiler and the Python headers (gcc, python3-dev) with apt"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get install -y --no-install-recommends gcc python3-dev >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y --no-install-recommends gcc python3-dev >/dev/null; }; fi

# Debian's chromium (and CJK fonts, so that screenshots show Chinese) for the browser tests.
browser:
	@if [ -x "$(CHROMIUM)" ]; then echo "browser: $$($(CHROMIUM) --version 2>/dev/null)"; else \
	  echo "browser: installing Debian's chromium for the browser tests"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk >/dev/null; }; \
	  $(CHROMIUM) --version; fi

# PostgreSQL and Redis for the server's tests (tests/service_helpers.py says how they are chosen): the ones that
# CHAODIPI_TEST_PG and CHAODIPI_TEST_REDIS name, else those answering at 127.0.0.1:5432 and 127.0.0.1:6379, else
# throwaway ones that the tests start (on free ports, stopped at the end of the run); CHAODIPI_TEST_SERVICES=own
# makes them start their own in any case. Debian's postgresql and redis-server are installed here with apt when
# their binaries are missing (tests/test_services.py starts one of each in any case): before pytest starts, as its
# workers would race. A server named in CHAODIPI_TEST_PG or CHAODIPI_TEST_REDIS that does not answer stops it here.
services: $(STAMP)
	@need=$$($(BIN)/python tests/service_helpers.py packages) || exit 1; \
	if [ -n "$$need" ]; then \
	  echo "services: installing $$need with apt, for the tests to start their own servers"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get install -y --no-install-recommends $$need >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y --no-install-recommends $$need >/dev/null; }; fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src/chaodipi

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/chaodipi

# The suite on both cores (pytest-xdist; every test makes its own files, ports, schemas and Redis keys), then the
# browser tests one at a time (each drives chromium and a server: two at once would fight for the cores). Every
# pytest run ends with its skipped tests and why (-rs), and with where its PostgreSQL and Redis came from.
UNIT = $(BIN)/pytest -n 2 -p no:cacheprovider -rs --ignore-glob="tests/test_browser*.py"
UNIT_BROWSER = CHAODIPI_CHROMIUM=$(CHROMIUM) $(BIN)/pytest -p no:cacheprovider -rs tests/test_browser*.py
unit: $(STAMP) browser services
	$(UNIT)
	$(UNIT_BROWSER)

# The suite on the compiled build: every test of the engine, the bots, the referee, records and the command line,
# and test_server.py: whole games through the server (pure Python in both builds) on the compiled engine, as
# `make run` plays them. Left to `unit` (the pure build), since they would test the same code twice:
# - the browser tests (10 minutes in chromium): they test the client;
# - SERVER_TESTS: the server's own code (storage, accounts, rooms, ledger, tournaments, several processes on
#   PostgreSQL and Redis), which calls the engine as test_server.py does.
# A new test file runs on both builds until it is named here. Only tests/ is given: a path in src/ would put src/
# first on sys.path and the pure sources would be tested (the doctests in src/ run in `unit`);
# CHAODIPI_EXPECT_COMPILED=1 makes tests/conftest.py stop at once if the engine imported is not compiled.
# (services: the tests' own PostgreSQL and Redis, no engine at all.)
SERVER_TESTS := accounts_http chat event_tables faults ledger migrations penalty_online platform protocol_doc rooms \
  server_edges server_restart server_store services table tournament_cli tournament_event tournament_online \
  tournament_pairing trick_pause web_api writer
UNIT_FAST = CHAODIPI_EXPECT_COMPILED=1 $(FAST_BIN)/pytest tests -p no:cacheprovider -rs --ignore-glob="tests/test_browser*.py" \
  $(foreach t,$(SERVER_TESTS),--ignore=tests/test_$(t).py)
unit-fast: $(FAST_STAMP) services
	@$(call say_engine,$(FAST_BIN))
	$(UNIT_FAST) -n 2

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

# Both builds, in about the time of one (CI runs this on 2 cores). First the pure build's suite on both cores, but
# for test_server.py, which runs on the compiled build only (its server code is the same in both builds; its
# engine's side, every view of every preset, runs on both in test_hidden_information.py). Then the pure build's
# browser tests, which wait on chromium and the server far more than they compute (a quarter of a core): so
# meanwhile, on the other core, the compiled build is made ($(FAST): 2 minutes from scratch, nothing when it is up
# to date) and unit-fast's tests run in one process (4 minutes); their output follows the browser tests'.
# On 2 cores, from a clean clone: 14 minutes, of which 10 are the browser tests and the compiled side 6 of those 10
# (test_server.py moved to that side took 1.5 minutes off the pure run; PLATFORM_TESTS, run on the pure build after
# the compiled side's tests, one more). Without the overlap it would be 20.
test: lint typecheck referee $(STAMP) services
	$(UNIT) --ignore=tests/test_server.py $(foreach t,$(PLATFORM_TESTS),--ignore=$(t))
	@echo "browser tests (pure build); meanwhile the compiled build, $(FAST), is made and tested, then the platform's tests (its output follows)"
	@log=$$(mktemp); $(MAKE) --no-print-directory -k -j2 unit-browser unit-fast-logged FAST_LOG=$$log; status=$$?; \
	  echo "--- the compiled build, $(FAST): make fast, then unit-fast's tests in one process; then PLATFORM_TESTS"; \
	  cat $$log; rm -f $$log; exit $$status

unit-browser: $(STAMP) browser
	$(UNIT_BROWSER)

# unit-fast in one process, its output (and the build's) kept in $(FAST_LOG) for `make test` to show; then, on the
# pure build, PLATFORM_TESTS: several server processes each (kill -9, SIGSTOP, a Redis restart: issue 38), which
# `make test` runs here, beside the browser tests, rather than in the pure suite before them (a minute less in all:
# this side has the time to spare, the browser tests are the longest part).
PLATFORM_TESTS := tests/test_platform.py tests/test_faults.py
FAST_LOG ?= /dev/null
unit-fast-logged:
	@$(MAKE) --no-print-directory $(FAST_STAMP) >>$(FAST_LOG) 2>&1
	@$(call say_engine,$(FAST_BIN)) >>$(FAST_LOG) 2>&1
	@status=0; $(UNIT_FAST) -n 0 >>$(FAST_LOG) 2>&1 || status=$$?; \
	  $(BIN)/pytest -p no:cacheprovider -rs $(PLATFORM_TESTS) >>$(FAST_LOG) 2>&1 || status=$$?; exit $$status

# The learn extra (torch and Ray: docs/bots.md): training the learned bot, self-play and arenas on a Ray cluster.
# TORCH is installed first: here torch==2.13.0 is the CPU build on this machine's disk; elsewhere PyPI's Linux
# wheel of torch is the CUDA build (gigabytes): make test-learn TORCH="torch --index-url https://download.pytorch.org/whl/cpu"
# installs the CPU one. `make test` does not need the extra: its tests of training and Ray are skipped without it.
TORCH ?= torch==2.13.0
LEARN_STAMP := $(VENV)/.learn-installed
$(LEARN_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e '.[dev,learn]'
	touch $(LEARN_STAMP)

learn: $(LEARN_STAMP)

test-learn: $(LEARN_STAMP)
	$(BIN)/pytest -p no:cacheprovider -rs tests/test_learned.py tests/test_cluster.py tests/test_rl_env.py tests/test_rl_rlcard.py

# Train the learned bot (docs/bots.md): the self-play data, then a network fitted to it, in $(WEIGHTS); play it with
# `.venv/bin/chaodipi arena learned rules --weights learned.npz`. The compiled build (make fast: about 4 times as
# fast, but it has no torch) plays the self-play hands and saves them in $(TRAIN_DATA) (without --out, train only
# makes the data); .venv (make learn: torch) fits them. HANDS hands, TEACHER playout or search (SAMPLES sampled
# deals per label), JOBS processes. The defaults are the shipped weights' (docs/bots.md): 40,000 hands, seed 13 (the data is 11 GB).
HANDS ?= 40000
TRAIN_SEED ?= 13
TEACHER ?= playout
SAMPLES ?= 16
EPOCHS ?= 4
TRAIN_DATA ?= selfplay.npz
WEIGHTS ?= learned.npz
train: $(LEARN_STAMP) $(FAST_STAMP)
	$(FAST_BIN)/chaodipi train --teacher $(TEACHER) --samples $(SAMPLES) --hands $(HANDS) --seed $(TRAIN_SEED) \
		--jobs $(JOBS) --save-data $(TRAIN_DATA)
	$(BIN)/chaodipi train --teacher $(TEACHER) --data $(TRAIN_DATA) --epochs $(EPOCHS) --threads 1 --out $(WEIGHTS)

soak: $(STAMP)
	CHAODIPI_SOAK=1 $(BIN)/pytest -m slow -p no:cacheprovider -rs

# bench_compare.py and bench_peers.py measure the compiled build too when $(FAST) is there: rebuilt first if stale.
bench: $(STAMP) $(if $(wildcard $(FAST)),$(FAST_STAMP))
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_hands.py
	$(BIN)/python bench/bench_bots.py
	$(BIN)/python bench/bench_server.py --tables 50 --seconds 20 --ramp 10 --warmup 10
	$(BIN)/python bench/bench_peers.py
	$(BIN)/python bench/bench_tournament.py --time-scale 0.02
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_memory.py
	$(BIN)/python bench/bench_cardsets.py
	$(BIN)/python bench/bench_rl_env.py

clean:
	rm -rf $(VENV) $(FAST) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
	find src -name '*.so' -delete
