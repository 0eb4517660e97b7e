# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
HAPROXY := /usr/sbin/haproxy

.PHONY: run test lint types unit chromium haproxy deploy-tools demo clean bench screenshots

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

DEPS := $(VENV)/.installed-deps
# bench/ (the package domino_bench: benchmarks, load tests and the test infrastructure they
# share) is not part of the package; a .pth file puts it on the venv's path, as an editable
# install would, so `python -m domino_bench.NAME` and `domino bench ...` find it.
$(DEPS): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/python -c "import pathlib, sysconfig; \
	  pathlib.Path(sysconfig.get_path('purelib'), 'domino_bench.pth').write_text('$(CURDIR)/bench\n')"
	touch $(DEPS)

# The rules kernel compiled with mypyc: setup.py, the one build definition of every wheel,
# already compiles it beside the sources in `pip install -e` above (mypy is a build
# requirement). tools/build_native.py builds it again through setup.py when a source of
# domino.rules changed since (the build is stale); if compiling fails (no compiler, no
# headers), one warning line and the rules run as pure Python. The .py files stay the
# source of truth: domino.rules.native ignores stale builds.
$(STAMP): $(DEPS) setup.py tools/build_native.py $(wildcard src/domino/rules/*.py)
	$(BIN)/python tools/build_native.py
	touch $(STAMP)

# The tests also cover the OpenSpiel game (tests/test_openspiel.py): `make test` adds the
# optional extra; `make run` stays lean. Rebuilt whenever $(DEPS) is (pyproject.toml changed).
OS_STAMP := $(VENV)/.installed-openspiel
$(OS_STAMP): $(DEPS)
	$(BIN)/pip install -q -e '.[dev,openspiel]'
	touch $(OS_STAMP)

# Debian's chromium for the browser tests (never `playwright install`).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq || sudo apt-get update -qq) && \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || \
	   sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium); \
	fi

# Debian's haproxy for the cluster tests (tests/cluster, deploy/haproxy.cfg).
haproxy:
	@if [ ! -x $(HAPROXY) ] && ! command -v haproxy >/dev/null; then \
	  echo "installing Debian's haproxy for the cluster tests"; \
	  (apt-get update -qq || sudo apt-get update -qq) && \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy || \
	   sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy); \
	fi

# Debian's tools for the tests of the operator's files in deploy/ (tests/deploy):
# systemd-analyze (systemd), promtool (prometheus, without its recommends: the
# node exporter and IPMI tools are not needed), openssl, pg_dump/pg_restore
# (postgresql-client).
DEPLOY_TOOLS := systemd-analyze:systemd promtool:prometheus openssl:openssl \
	pg_restore:postgresql-client
deploy-tools:
	@missing=; for pair in $(DEPLOY_TOOLS); do \
	  command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian's$$missing for the deploy tests"; \
	  (apt-get update -qq || sudo apt-get update -qq) && \
	  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || \
	   sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing); \
	fi

run: $(STAMP)
	$(BIN)/domino serve

demo: $(STAMP)
	$(BIN)/domino demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: $(OS_STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(OS_STAMP)
	$(BIN)/pytest

test: $(STAMP) chromium haproxy deploy-tools lint types unit

# The committed screenshots (docs/screenshots) change only through this target; the browser
# tests write theirs to the ignored test-artifacts/ otherwise.
screenshots: $(STAMP) chromium
	DOMINO_SCREENSHOTS=docs/screenshots $(BIN)/pytest tests/web

# The benchmarks and load tests live in bench/ (the package domino_bench, never in the wheel);
# `domino bench ...` from this checkout finds them (`domino bench --help` lists them). This
# door adds what they compare against (the bench extra) and runs the engine bench.
bench: $(STAMP)
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/domino bench engine

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build dist
	rm -f src/domino/rules/*.so src/domino/rules/native.stamp

# Reliability (docs/reliability.md): SIGKILL the server five times under load, nothing lost;
# the load ramp with one flooder, the plot in docs/server-load.png; 1,000 audited matches.
.PHONY: crash bench-server leak-audit
crash: $(STAMP)
	$(BIN)/domino bench crash --kills 5

bench-server: $(STAMP)
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/domino bench server --flood --plot docs/server-load.png

leak-audit: $(STAMP)
	$(BIN)/domino bench leaks --matches 1000

# The cluster (docs/performance.md): one process against 1-3 nodes behind HAProxy; kill -9 the
# owner of matches 12 times. Need PostgreSQL (DOMINO_TEST_POSTGRES), redis-server and haproxy.
.PHONY: bench-cluster bench-failover
bench-cluster: $(STAMP)
	$(BIN)/domino bench cluster

bench-failover: $(STAMP)
	$(BIN)/domino bench failover --kills 12
