# Two commands for a newcomer: `make sim` and `make test`. Everything else is for owners and CI.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: sim test lint format bench clean install uninstall

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

sim: $(STAMP)
	$(BIN)/trap-companion sim

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/trap-companion bench

install:
	bash systemd/install.sh

uninstall:
	bash systemd/uninstall.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
