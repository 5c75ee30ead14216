# chaodipi: make run | make test | make bench
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared
PRESET ?= standard
SEED ?= 1

.PHONY: run test soak bench lint typecheck unit referee clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/chaodipi selfplay --preset $(PRESET) --seed $(SEED)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src/chaodipi

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/chaodipi

unit: $(STAMP)
	$(BIN)/pytest

referee: $(STAMP)
	@if [ -f $(SHARED)/tools/referee_check.py ]; then \
	  $(BIN)/python $(SHARED)/tools/referee_check.py --cmd "$(BIN)/chaodipi referee" $(SHARED)/scenarios/*.jsonl; \
	else echo "no $(SHARED)/tools/referee_check.py: public scenarios skipped"; fi

test: lint typecheck referee unit

soak: $(STAMP)
	CHAODIPI_SOAK=1 $(BIN)/pytest -m slow -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_hands.py
	$(BIN)/python bench/bench_bots.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build src/*.egg-info
