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

.PHONY: run selfplay test soak bench lint typecheck unit referee browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

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

unit: $(STAMP) browser
	CHAODIPI_CHROMIUM=$(CHROMIUM) $(BIN)/pytest

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

test: lint typecheck referee unit

soak: $(STAMP)
	CHAODIPI_SOAK=1 $(BIN)/pytest -m slow -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_hands.py
	$(BIN)/python bench/bench_bots.py
	$(BIN)/python bench/bench_server.py --tables 50 --seconds 20 --ramp 10 --warmup 10
	$(BIN)/python bench/bench_peers.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
