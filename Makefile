# The two set-up commands: `make run` and `make test` create their own venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
SHARED ?= ../shared

# Tests run on every core (pytest-xdist); PYTEST_ARGS='-n 0 ...' runs them in one process.
PYTEST_ARGS ?= -n auto

.PHONY: run test lint parity docker clean bench parser-index

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP) $@

run: $(STAMP)
	$(BIN)/tokenfront serve $(ARGS)

test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy
	@if [ -x $(BIN)/hadolint ]; then $(BIN)/hadolint docker/Dockerfile; fi

parity: $(STAMP)
	$(BIN)/python $(SHARED)/parity/replay.py --golden $(SHARED)/parity/golden-public.jsonl \
	  --models-root $(SHARED) \
	  --server-cmd '$(abspath $(BIN))/tokenfront serve --model {model} --served-model-name {name} --host 127.0.0.1 --port {port} {args}' $(PARITY_ARGS)

parser-index: $(STAMP)
	$(BIN)/python scripts/gen_parser_index.py

bench: $(STAMP)
	$(BIN)/python scripts/bench/run.py $(BENCH_ARGS)

docker:
	docker build -f docker/Dockerfile -t tokenfront:latest .

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
