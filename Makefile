# lifeloom: `make demo` builds the demo corpus offline; `make test` runs the test suite; `make presets` builds every
# shipped preset (schemas/presets/*.toml), each in a fresh data root with its own gates, and fails if any build fails.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export DO_NOT_TRACK := 1

# Operations (deploy/README.md): a persistent Prefect server, the nightly deployment and its worker.
PREFECT_PORT   ?= 4200
LIFELOOM_HOME  ?= $(CURDIR)/.lifeloom
LIFELOOM_TZ    ?= UTC
LIFELOOM_POOL  ?= lifeloom-process
RUNDIR         := $(LIFELOOM_HOME)/run
UI_URL         := http://127.0.0.1:$(PREFECT_PORT)
export LIFELOOM_HOME LIFELOOM_TZ LIFELOOM_POOL
export LIFELOOM_ROOT := $(CURDIR)

.PHONY: demo test presets lint bench clean install ui nightly stop grammar

install: $(STAMP)

# torch goes in first, pinned to the local CPU wheel: sentence-transformers then finds it and pulls no CUDA build.
$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory grammar
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Debian's Link Grammar: the grammar check of `lifeloom metrics` (tasks/metrics/grammar.py loads it). Installed
# the way .ci/run installs Chromium: only when missing, with apt-get, as root or by passwordless sudo; without it
# the grammar measures are null and say why.
grammar:
	@if [ ! -f /usr/lib/python3/dist-packages/linkgrammar/__init__.py ] && command -v apt-get >/dev/null 2>&1; then \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo -n"; \
	  if $$SUDO apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	      --no-install-recommends link-grammar python3-link-grammar >/dev/null 2>&1; then echo "installed link-grammar"; \
	  else echo "warning: could not install link-grammar; the grammar measures will be null" >&2; fi; fi

demo: $(STAMP)
	$(BIN)/lifeloom build --preset demo

# Two workers (the machine's two cores), one test file per worker at a time so module fixtures build once.
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# CI runs it after `make test` (.ci/run): about 8 minutes on two cores (rhelm 3.5, finperma 2-3, demo and tiny < 1).
presets: $(STAMP)  ## build + gate every preset in a fresh temp data root; PRESETS_ARGS="--only tiny,demo --clean"
	$(BIN)/python -m flows.presets $(PRESETS_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)  ## every bench module -> bench/results.md + results.json; BENCH_ARGS="--only scale --quick"
	$(BIN)/python -m bench $(BENCH_ARGS)

ui: $(STAMP)  ## start a persistent Prefect server on 127.0.0.1:$(PREFECT_PORT) (idempotent)
	@mkdir -p $(RUNDIR)
	@if curl -sf $(UI_URL)/api/health >/dev/null 2>&1; then echo "Prefect server already up"; else \
	  PREFECT_SERVER_API_HOST=127.0.0.1 PREFECT_SERVER_API_PORT=$(PREFECT_PORT) \
	  PREFECT_UI_API_URL=$(UI_URL)/api nohup $(BIN)/prefect server start >$(RUNDIR)/server.log 2>&1 & \
	  echo $$! >$(RUNDIR)/server.pid; \
	  for i in $$(seq 60); do curl -sf $(UI_URL)/api/health >/dev/null 2>&1 && break; sleep 1; done; \
	  curl -sf $(UI_URL)/api/health >/dev/null || { echo "server did not start; see $(RUNDIR)/server.log"; exit 1; }; fi
	@echo "Prefect UI: $(UI_URL)   (API: $(UI_URL)/api; export PREFECT_API_URL=$(UI_URL)/api)"

nightly: ui  ## create the work pool, deploy deploy/prefect.yaml and start a process worker
	@export PREFECT_API_URL=$(UI_URL)/api; \
	$(BIN)/prefect work-pool inspect $(LIFELOOM_POOL) >/dev/null 2>&1 || \
	  $(BIN)/prefect work-pool create $(LIFELOOM_POOL) --type process >/dev/null; \
	$(BIN)/prefect --no-prompt deploy --all --prefect-file deploy/prefect.yaml; \
	if [ -f $(RUNDIR)/worker.pid ] && kill -0 $$(cat $(RUNDIR)/worker.pid) 2>/dev/null; then \
	  echo "worker already running (pid $$(cat $(RUNDIR)/worker.pid))"; else \
	  PATH=$(CURDIR)/$(BIN):$$PATH nohup $(BIN)/prefect worker start --pool $(LIFELOOM_POOL) --type process \
	    >$(RUNDIR)/worker.log 2>&1 & echo $$! >$(RUNDIR)/worker.pid; \
	  echo "worker started (pid $$(cat $(RUNDIR)/worker.pid), log $(RUNDIR)/worker.log)"; fi
	@echo "nightly deployment: $(UI_URL)/deployments  (run now: PREFECT_API_URL=$(UI_URL)/api \
	$(BIN)/prefect deployment run nightly/nightly)"
	@PREFECT_API_URL=$(UI_URL)/api $(BIN)/python -c "from flows.schedules import describe; print(describe())" \
	  || echo "schedule: cron 0 2 * * * in $(LIFELOOM_TZ)"

stop:  ## stop the worker and the server that `make ui` / `make nightly` started
	@for p in worker server; do f=$(RUNDIR)/$$p.pid; if [ -f $$f ]; then pid=$$(cat $$f); \
	  kill -INT $$pid 2>/dev/null; for i in $$(seq 20); do kill -0 $$pid 2>/dev/null || break; sleep 0.5; done; \
	  kill -TERM $$pid 2>/dev/null; echo "stopped $$p (pid $$pid)"; rm -f $$f; fi; done

clean:
	rm -rf .lifeloom build *.egg-info
