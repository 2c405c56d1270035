# Every target bootstraps the project's own virtual environment first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

PROTOS := $(wildcard proto/tranca/v1/*.proto)
GEN    := server/tranca/v1/.generated
# The Python SDK (clients/python): a distribution of its own, with stubs of its own.
SDK     := clients/python
SDK_GEN := $(SDK)/tranca_client/v1/.generated

.PHONY: venv proto run demo test lint typecheck pytest bench bench-service simulate clean
.PHONY: compiled arena
.PHONY: play
.PHONY: node-deps
.PHONY: web
.PHONY: bench-scale
.PHONY: acceptance-tournament
.PHONY: fuzz
.PHONY: system-deps deploy-check rig rig-down audit

# The server and the SDK, both editable; the SDK's build generates its stubs into
# its source tree (clients/python/build_stubs.py).
$(STAMP): pyproject.toml server/engine/pyproject.toml $(SDK)/pyproject.toml $(SDK)/setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ./server/engine -e './$(SDK)[table,expert]' -e '.[dev]'
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

# The SDK's copy (the package tranca_client.v1), remade when a contract changes, as
# its distribution's build makes it.
$(SDK_GEN): $(PROTOS) $(SDK)/build_stubs.py $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python $(SDK)/build_stubs.py
	touch $(SDK_GEN)

proto: $(GEN) $(SDK_GEN)

## The rules engine compiled with mypyc, for simulations and bots (about twice as
## fast there; the service gains nothing, so it and `make test` run the sources): a
## copy of server/ in build/compiled/server with the extensions beside the copied
## sources, rebuilt when a compiled module changed (about 50 s). Use it by putting it
## first on the path: PYTHONPATH=build/compiled/server .venv/bin/tranca simulate ...
COMPILED := build/compiled/server
compiled: $(STAMP) $(GEN)
	$(BIN)/python server/compile_engine.py --if-needed

venv: $(STAMP) $(GEN) $(SDK_GEN)

DB_URL      ?= sqlite:///tranca.db
DEV_API_KEY ?= dev-key-change-me
WEB_PORT    ?= 8080

## The server on the embedded SQLite default (./tranca.db), with a development API key:
## gRPC on 127.0.0.1:50051, and the browser port (the web table, Connect and gRPC-Web)
## on http://127.0.0.1:$(WEB_PORT)/, serving the table `make web` builds.
run: venv web
	$(BIN)/tranca migrate --database-url $(DB_URL)
	@echo "development API key: $(DEV_API_KEY)  (send it as the x-api-key header)"
	@echo "web table: http://127.0.0.1:$(WEB_PORT)/  (open it in a browser)"
	$(BIN)/tranca serve --database-url $(DB_URL) --dev-api-key $(DEV_API_KEY) \
	  --web-port $(WEB_PORT) --log-format console

## A terminal table against a server started by `make run` (starts nothing itself):
## you and the server's robots (played by the server's sweeper, so they play on after
## you quit), at the level --bots asks the new table for (random, greedy, expert; server:
## the operator's). PLAY_ARGS="--game ID --seat N" joins a game.
PLAY_ADDRESS ?= 127.0.0.1:50051
PLAY_ARGS    ?= --new --preset tranca-000 --players 4 --bots greedy
play: venv
	$(BIN)/tranca play --address $(PLAY_ADDRESS) --api-key $(DEV_API_KEY) $(PLAY_ARGS)

## Bots playing a match in the terminal, on the rules engine alone.
demo: venv
	$(BIN)/tranca demo --preset tranca-000 --players 4 --seed 1

## Tournaments' acceptance test at the issue's size: a scheduled 64-entrant event (check-in,
## 6 Swiss rounds, a top-8 play-off) run by two `tranca serve` processes on PostgreSQL
## with no organiser call after its creation (about 3 minutes here; `make test` runs a
## 16-entrant one). Prints the largest request latency on either process meanwhile.
acceptance-tournament: venv
	TRANCA_TOURNAMENT_ACCEPTANCE=full $(BIN)/pytest -q -s -n 0 tests/faults/test_tournament_acceptance.py

## A short service benchmark: SubmitMove throughput and latency on SQLite and PostgreSQL.
bench-service: venv
	$(BIN)/python bench/service_quick.py --out bench/results

## Memory and scale: server RSS idle, warmed up and with SCALE_WATCHERS watch streams,
## move latency and the watch streams' fan-out delay, with SCALE_SIZES games stored
## (seeded with COPY on PostgreSQL; up to 1,000,000), on SQLite and PostgreSQL
## (bench/README.md). SCALE_FEED=nats://127.0.0.1:4222 runs the server with the NATS
## change feed (deploy/nats-up.sh starts the machine's NATS if it is down), and
## SCALE_DBS=postgres leaves SQLite out. Then the change feed and PgBouncer with three
## replicas in the rig (bench/feed_bench.py) and the bytes per game and move
## (bench/storage_bench.py).
SCALE_PG       ?= postgresql://postgres@127.0.0.1:5432/test
SCALE_SIZES    ?= 10,1000,10000
SCALE_WATCHERS ?= 1000
SCALE_FEED     ?=
SCALE_DBS      ?= sqlite postgres
bench-scale: venv system-deps
	@if [ -n "$(SCALE_FEED)" ]; then bash deploy/nats-up.sh; fi
	nice -n 10 $(BIN)/python bench/scale.py --out bench/results --sizes $(SCALE_SIZES) \
	  --watchers $(SCALE_WATCHERS) $(if $(SCALE_FEED),--change-feed $(SCALE_FEED)) \
	  $(if $(filter sqlite,$(SCALE_DBS)),--database-url sqlite) \
	  $(if $(filter postgres,$(SCALE_DBS)),--database-url $(SCALE_PG))
	nice -n 10 $(BIN)/python bench/feed_bench.py --out bench/results
	nice -n 10 $(BIN)/python bench/storage_bench.py --out bench/results

## Lint, type check and the whole test suite.
test: system-deps lint typecheck deploy-check pytest

lint: venv
	$(BIN)/ruff check server clients/python tests bench
	$(BIN)/ruff format --check server clients/python tests bench
	$(BIN)/lint-imports --no-cache
	$(BIN)/buf lint
	@tag=$$(git describe --tags --abbrev=0 2>/dev/null); \
	if [ -n "$$tag" ]; then echo "buf breaking against $$tag"; \
	  $(BIN)/buf breaking --against ".git#tag=$$tag"; \
	else echo "buf breaking: no release tag yet"; fi

## mypy --strict over the server, the Python SDK, the tests and the benchmarks
## (the files of [tool.mypy] in pyproject.toml).
typecheck: venv
	$(BIN)/mypy

## The Node.js client's packages (clients/node), installed from its package-lock.json
## when node_modules is missing or older than the lock. Without npm it says so: the
## Node client's test then skips, or fails when CI is set.
NODE_DIR  := clients/node
NODE_LOCK := $(NODE_DIR)/node_modules/.package-lock.json

node-deps:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the Node.js client's packages are not installed"; \
	elif [ ! -f $(NODE_LOCK) ] || [ $(NODE_DIR)/package-lock.json -nt $(NODE_LOCK) ] \
	    || [ $(NODE_DIR)/package.json -nt $(NODE_LOCK) ]; then \
	  echo "npm ci --prefix $(NODE_DIR) --ignore-scripts"; \
	  npm ci --prefix $(NODE_DIR) --ignore-scripts --no-audit --no-fund && touch $(NODE_LOCK); \
	fi

## The browser client and the web table (clients/web): its packages installed from its
## package-lock.json (npm ci, when node_modules is missing or older than the lock),
## then TypeScript generated from proto/ (buf with the local protoc-gen-es), the
## client compiled with tsc into clients/web/dist (with its .d.ts types) and the table
## bundled with esbuild into clients/web/table/dist; rebuilt when a source changed.
## Without npm it says so: the browser tests then skip, or fail when CI is set.
WEB_DIR   := clients/web
WEB_LOCK  := $(WEB_DIR)/node_modules/.package-lock.json
WEB_STAMP := $(WEB_DIR)/table/dist/.built
WEB_SRC   := $(wildcard $(WEB_DIR)/src/*.ts $(WEB_DIR)/table/src/*.ts $(WEB_DIR)/table/src/*/*.ts $(WEB_DIR)/table/*.html \
               $(WEB_DIR)/table/*.css $(WEB_DIR)/scripts/*.mjs $(WEB_DIR)/*.json $(WEB_DIR)/table/*.json) \
             $(WEB_DIR)/buf.gen.yaml $(wildcard proto/google/rpc/*.proto) $(PROTOS)

web: $(WEB_STAMP)

$(WEB_STAMP): $(WEB_SRC) $(STAMP)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: clients/web (the browser client and the web table) is not built"; \
	else \
	  if [ ! -f $(WEB_LOCK) ] || [ $(WEB_DIR)/package-lock.json -nt $(WEB_LOCK) ] \
	      || [ $(WEB_DIR)/package.json -nt $(WEB_LOCK) ]; then \
	    echo "npm ci --prefix $(WEB_DIR) --ignore-scripts"; \
	    npm ci --prefix $(WEB_DIR) --ignore-scripts --no-audit --no-fund && touch $(WEB_LOCK) || exit 1; \
	  fi; \
	  echo "npm run build --prefix $(WEB_DIR)"; \
	  BUF="$(CURDIR)/$(BIN)/buf" npm run --silent --prefix $(WEB_DIR) build && touch $(WEB_STAMP); \
	fi

pytest: venv node-deps web
	$(BIN)/pytest -n 2 -q --durations=40

## Engine benchmark (one core) compiled and interpreted, then the service against this
## machine's ceilings (PostgreSQL and SQLite transactions, gRPC echo):
## bench/results/engine.{json,md}, engine-interpreted.{json,md} and service.{json,md}. PostgreSQL on 127.0.0.1:5432 (skipped if down) and pgbench.
## The browser port's cost per call beside native gRPC: bench/results/browser.{json,md}.
## Then webhook deliveries a second and their p99 delay: bench/results/webhooks.{json,md};
## and quick play's matchmaker (a queue of 1,000 players, the wait in a steady stream):
## bench/results/matchmaking.{json,md}. Then tournaments' GetTournament p99 and the time to record
## a result, for 64-, 256- and 1,024-player Swiss events with draws: bench/results/tournaments.{json,md}.
bench: venv compiled peer-deps system-deps
	PYTHONPATH=$(COMPILED) $(BIN)/python bench/engine_bench.py --out bench/results
	$(BIN)/python bench/engine_bench.py --out bench/results --name engine-interpreted
	$(BIN)/python bench/edge_bench.py --out bench/results
	$(BIN)/python bench/browser_bench.py --out bench/results --seconds 4 --rounds 2
	$(BIN)/python bench/pool_bench.py --out bench/results
	$(BIN)/python bench/service_bench.py --out bench/results --rounds 3
	$(BIN)/python bench/webhook_bench.py --out bench/results
	$(BIN)/python bench/matchmaking_bench.py --out bench/results --players 1000 --arrivals 50 --seconds 20
	$(BIN)/python bench/chat_bench.py --out bench/results --tables 250 --processes 2 --verify
	$(BIN)/python bench/tournament_bench.py --out bench/results --sizes 64 256 1024
	$(MAKE) arena

## The benchmark's peer (bench/peer: boardgame.io and its PostgreSQL adapter, pinned
## with their lock file), for `make bench`; without npm the peer's runs are skipped.
PEER_DIR  := bench/peer
PEER_LOCK := $(PEER_DIR)/node_modules/.package-lock.json

.PHONY: peer-deps
peer-deps:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the benchmark's peer is not installed"; \
	elif [ ! -f $(PEER_LOCK) ] || [ $(PEER_DIR)/package-lock.json -nt $(PEER_LOCK) ] \
	    || [ $(PEER_DIR)/package.json -nt $(PEER_LOCK) ]; then \
	  echo "npm ci --prefix $(PEER_DIR) --ignore-scripts"; \
	  npm ci --prefix $(PEER_DIR) --ignore-scripts --no-audit --no-fund && touch $(PEER_LOCK); \
	fi

## The bots' arena (docs/BOTS.md): duplicate pairs of greedy against random and expert
## against greedy, ARENA_PAIRS pairs on the acceptance presets (tranca-000 with 2
## players, tranca-003 and canasta-002 with 4) and ARENA_OTHER_PAIRS on every other
## preset, the expert at ARENA_ITERATIONS playouts a decision; then its decision time
## at its default budget, and the clients' move throughput while the server's robots
## think, and what the SDK's expert costs to read its view and a few pairs of it through
## a server. Writes bench/results/bots.{json,md}, robots.{json,md} and
## sdk_expert.{json,md}. Long: the full size is hours of one core (the sizes that ran
## are in bots.md).
ARENA_PAIRS       ?= 400
ARENA_OTHER_PAIRS ?= 20
ARENA_ITERATIONS  ?= 100
arena: venv compiled
	PYTHONPATH=$(COMPILED) nice -n 10 $(BIN)/python bench/bots_bench.py --out bench/results \
	  --pairs $(ARENA_PAIRS) --other-pairs $(ARENA_OTHER_PAIRS) --iterations $(ARENA_ITERATIONS) --budget-pairs 2
	nice -n 10 $(BIN)/python bench/robots_bench.py --out bench/results
	nice -n 10 $(BIN)/python bench/sdk_expert_bench.py --out bench/results

## The API fuzzers at a larger size than `make test`'s (300 contract cases and 150
## gameplay cases per database there): every RPC's contract with hostile input, and
## moves, credentials and hidden cards, on SQLite and PostgreSQL (docs/RELIABILITY.md).
FUZZ_CONTRACT_CASES ?= 3000
FUZZ_GAME_CASES     ?= 1500
fuzz: venv
	TRANCA_CONTRACT_FUZZ_EXAMPLES=$(FUZZ_CONTRACT_CASES) TRANCA_FUZZ_EXAMPLES=$(FUZZ_GAME_CASES) \
	  $(BIN)/pytest -q -s tests/faults/test_fuzz_contracts.py tests/faults/test_fuzz_shapes.py tests/faults/test_fuzz_api.py

## A longer invariant-checked simulation of every preset (not part of `make test`).
simulate: venv compiled
	PYTHONPATH=$(COMPILED) $(BIN)/python bench/soak.py --deals 300

## Debian packages for the deploy checks and the local rig: nginx (the gRPC balancer),
## prometheus (with promtool) and prometheus-alertmanager (amtool), installed with
## apt-get only when missing (as root; outside CI a non-root user gets the command to
## run instead).
system-deps:
	bash deploy/system-deps.sh

## Deployment files checked offline: YAML lint, hadolint, the Compose schema, nginx -t,
## promtool (configs, rules, rule tests, the dashboard's queries), amtool (the
## Alertmanager config and its routes), the Kubernetes schemas and the manifests'
## consistency, the docs' settings and rate limits (deploy/check.sh).
deploy-check: venv system-deps
	bash deploy/check.sh

## The local rig on loopback: a fresh PostgreSQL database, three servers, nginx and
## Prometheus (deploy/rig/rig.py); it stops by itself after RIG_TTL seconds (1800).
rig: venv system-deps
	$(BIN)/python deploy/rig/rig.py up

rig-down:
	$(BIN)/python deploy/rig/rig.py down

## Dependency audit (pip-audit). It needs a vulnerability database (the package index's
## JSON API or OSV); where neither is reachable it reports every package as not audited.
audit: venv
	$(BIN)/pip-audit --progress-spinner off --skip-editable --strict

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build
	find server -name '*.so' -delete
