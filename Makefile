# Every target bootstraps the project's own virtual environment first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

PROTOS := $(wildcard proto/tranca/v1/*.proto)
GEN    := server/tranca/v1/.generated

.PHONY: venv proto run demo test lint typecheck pytest bench bench-service simulate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Python stubs and typing stubs of the contracts, generated from proto/, never
# edited by hand and never committed (the package tranca.v1).
$(GEN): $(PROTOS) $(STAMP)
	rm -rf server/tranca/v1
	mkdir -p server/tranca/v1
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grpc_tools.protoc -Iproto \
	  --python_out=server --grpc_python_out=server \
	  --mypy_out=server --mypy_grpc_out=server $(PROTOS)
	touch server/tranca/v1/__init__.py $(GEN)

proto: $(GEN)

venv: $(STAMP) $(GEN)

DB_URL      ?= sqlite:///tranca.db
DEV_API_KEY ?= dev-key-change-me

## The server on the embedded SQLite default (./tranca.db), with a development API key.
run: venv
	$(BIN)/tranca migrate --database-url $(DB_URL)
	@echo "development API key: $(DEV_API_KEY)  (send it as the x-api-key header)"
	$(BIN)/tranca serve --database-url $(DB_URL) --dev-api-key $(DEV_API_KEY) --log-format console

## Bots playing a match in the terminal, on the rules engine alone.
demo: venv
	$(BIN)/tranca demo --preset tranca-000 --players 4 --seed 1

## A short service benchmark: SubmitMove throughput and latency on SQLite and PostgreSQL.
bench-service: venv
	$(BIN)/python bench/service_quick.py --out bench/results

## Lint, type check and the whole test suite.
test: lint typecheck pytest

lint: venv
	$(BIN)/ruff check server clients/python tests bench
	$(BIN)/ruff format --check server clients/python tests bench
	$(BIN)/buf lint
	@tag=$$(git describe --tags --abbrev=0 2>/dev/null); \
	if [ -n "$$tag" ]; then echo "buf breaking against $$tag"; \
	  $(BIN)/buf breaking --against ".git#tag=$$tag"; \
	else echo "buf breaking: no release tag yet"; fi

typecheck: venv
	$(BIN)/mypy

pytest: venv
	$(BIN)/pytest -n 2 -q

## Engine benchmark (one core): writes bench/results/engine.json and engine.md.
bench: venv
	$(BIN)/python bench/engine_bench.py --out bench/results

## A longer invariant-checked simulation of every preset (not part of `make test`).
simulate: venv
	$(BIN)/python bench/soak.py --deals 300

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
