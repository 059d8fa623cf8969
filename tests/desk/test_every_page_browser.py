"""Every desk page an operator opens, in a real Chromium at 1,440 × 900, once in Chinese and
once in English, over the store `seed-demo` leaves (its open review items of every kind), a
memory edited into a second version, a funnel-written event, a reflection, a metrics
snapshot and an API token. Each page is written to test-artifacts/screenshots/<lang>/<page>.png.

Checks on every page: no horizontal scrolling, and a dictionary check over the rendered
visible text outside the user-data regions (elements marked data-user-data: memory content,
conversation turns, notes, names) and literals to type (<code>). In Chinese no stored code (snake_case, UPPER_CASE) and no English
word except data and ad-ops vocabulary; in English no Han character."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.conftest import staff_user

from .conftest import ARTIFACTS, BROWSER_MARKS, VIEWPORT, chromium_tab, log_in

pytestmark = BROWSER_MARKS

PASSWORD = "全页-desk-2026"
OPERATOR = "运营赵"
LOCALES = {"zh-Hans": "zh-CN", "en": "en-US"}

# Vocabulary that is data or the trade's own words, not untranslated UI: ad-ops metrics and
# acronyms, units, the product's name, and standard names (time zones, HTTP).
AD_OPS = {
    "ROI",
    "ROAS",
    "CPA",
    "CPC",
    "CPM",
    "eCPM",
    "CTR",
    "CVR",
    "GMV",
    "OTC",
    "KPI",
    "SKU",
    "UV",
    "PV",
    "DAU",
    "LTV",
    "ARPU",
    "GPM",
    "oCPM",
    "oCPC",
    "APP",
    "App",
    "app",
    "SEM",
    "SEO",
    "KOL",
    "KOC",
    "DTC",
    "A",
    "B",
    "C",
    "AB",
    "TopK",
}
UNITS = {"ms", "s", "h", "d", "min", "px", "KB", "MB", "GB", "k", "w", "x"}
NAMES = {"ID", "Lingix", "Memory", "Asia", "Shanghai", "UTC", "OpenClaw", "DoubtMem", "SQLite", "PostgreSQL", "JSON", "JSONL", "API", "MCP"}
LAYER = re.compile(r"^L[1-4]$")
RAW_CODE = re.compile(r"\b(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*[A-Za-z0-9]|[A-Za-z]")
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

# The visible text of a page, outside the user-data regions, one string per text node.
VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim()) continue;
    if (el.closest('script, style, noscript, template, code, textarea, [data-user-data], [hidden]')) continue;
    if (el.closest('select') && !el.closest('option:checked')) continue;
    const rects = el.getClientRects();
    const style = getComputedStyle(el);
    if (!rects.length || style.visibility === 'hidden' || style.display === 'none') continue;
    out.push(node.textContent.trim());
  }
  return out;
}"""


def _data_words() -> set[str]:
    """Codes that are the store's own data: advertisers, actors, token and user names."""
    from django.contrib.auth.models import User

    from api.models import ApiToken
    from governance.models import AuditLog, MemoryEvent, ReviewItem
    from memories.models import Memory

    values: set[str] = set()
    values.update(a for a in Memory.objects.values_list("advertiser", flat=True).distinct() if a)
    values.update(AuditLog.objects.values_list("actor", flat=True).distinct())
    values.update(MemoryEvent.objects.values_list("actor", flat=True).distinct())
    values.update(ReviewItem.objects.values_list("proposed_by", flat=True).distinct())
    values.update(ApiToken.objects.values_list("name", flat=True))
    values.update(User.objects.values_list("username", flat=True))
    words: set[str] = set()
    for value in values:
        words.update(WORD.findall(value or ""))
        words.update(RAW_CODE.findall(value or ""))
    return words


def _zh_problems(texts: list[str], data: set[str]) -> list[str]:
    problems = []
    for text in texts:
        for code in RAW_CODE.findall(text):
            if code not in data:
                problems.append(f"code {code!r} in {text[:120]!r}")
        for word in WORD.findall(text):
            bare = word.strip(".+-")
            if "_" in bare or not bare or bare in data:
                continue
            if bare in AD_OPS or bare in UNITS or bare in NAMES or LAYER.match(bare):
                continue
            if any(c.isdigit() for c in bare):  # numbers with units (3c, 15s), versions, ids, UTC+08
                continue
            problems.append(f"English {bare!r} in {text[:120]!r}")
    return problems


def _en_problems(texts: list[str]) -> list[str]:
    return [f"Han in {text[:120]!r}" for text in texts if HAN.search(text)]


@pytest.fixture
def store(transactional_db, django_user_model):
    from django.utils import timezone

    from api.services import api_token_create
    from governance.intake.services import event_trigger
    from governance.lifecycle.reflection import reflection_run
    from governance.metrics.snapshots import metric_snapshot_take
    from governance.models import LayerPolicy
    from governance.write.admin_edits import memory_admin_edit
    from lingix_site.demo import demo_load_once
    from memories.models import Memory

    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    report = demo_load_once()
    assert report["loaded"], report
    operator = staff_user(django_user_model, OPERATOR, "operator", password=PASSWORD)
    written = event_trigger(
        event_type="user_feedback",
        advertiser="brand_A",
        source="user",
        layer="L2",
        business_line="美妆",
        summary="brand_A 美妆大促期间出价上调15%，ROI 从1.8升到2.3",
        actor="token:ops-agent",
        data={
            "attitude": "确认有效",
            "correct_action": "大促期间出价上调15%",
            "conditions": "美妆大促、预算充足",
            "roi_before": 1.8,
            "roi_after": 2.3,
        },
    )
    # Any outcome will do: the page shows the funnel's stages for it.
    assert written.event_id, written.reasons
    edited = Memory.objects.filter(layer="L2", advertiser="brand_B", status="active").order_by("pk").first()
    second = memory_admin_edit(
        memory=edited, user=operator, changes={"content": edited.content + "（2026 年双11复盘后确认）"}, note="复盘后补充适用时间"
    )
    reflection_run(actor="scheduler", now=timezone.now())
    metric_snapshot_take(now=timezone.now())
    api_token_create(name="ads-agent", advertisers=["brand_A"], created_by_name=OPERATOR)
    return {"review_items": report["review_items"], "versions_of": second.pk, "event": written.event_id}


def _pages(store: dict[str, Any]) -> list[tuple[str, str]]:
    """(screenshot name, path) for every page of the desk an operator may open."""
    pages = [("dashboard", reverse("admin:index"))]
    for model in admin.site._registry:
        if model._meta.app_label == "auth":
            continue  # user management is the superuser's, not the desk's (operator role)
        name = f"{model._meta.app_label}-{model._meta.model_name}"
        pages.append((f"{name}-list", reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")))
        first = model._default_manager.order_by("pk").first()
        if first is not None and model._meta.model_name not in {"reviewitem", "memory", "memoryevent"}:
            pages.append((f"{name}-change", reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[first.pk])))
    for kind, ids in store["review_items"].items():
        assert ids, kind
        pages.append((f"review-{kind}", reverse("admin:governance_reviewitem_change", args=[ids[0]])))
    pages.append(("review-open-queue", reverse("admin:governance_reviewitem_changelist") + "?status__exact=open"))
    pages.append(("memory-with-versions", reverse("admin:memories_memory_change", args=[store["versions_of"]])))
    pages.append(("memory-edit", reverse("admin:memories_memory_change", args=[store["versions_of"]]) + "?edit=1"))
    pages.append(("event-funnel", reverse("admin:governance_memoryevent_change", args=[store["event"]])))
    return pages


def _page_parts(tab, name: str) -> list[str]:
    """What the issue asks of the review pages: the consequence line on every kind of open item,
    the reason column in the queue, the version-to-version diff on the memory page."""
    if name.startswith("review-") and name != "review-open-queue":
        lines = tab.locator("#review-consequence p").all_inner_texts()
        if not lines or not all(line.strip() for line in lines):
            return [f"consequence line {lines}"]
    if name == "review-open-queue":
        reasons = tab.locator("#result_list td.field-reason_column").all_inner_texts()
        if not reasons or not all(r.strip() for r in reasons):
            return [f"reason column {reasons}"]
    if name == "memory-with-versions":
        rows = tab.locator("#version-diff tbody tr").count()
        changed = tab.locator("#version-diff .lingix-version-change .after").count()
        if rows != 2 or changed != 1:
            return [f"version diff: {rows} versions, {changed} changes shown"]
    return []


def _suggestion_columns(tab) -> list[str]:
    """The signal and the playbooks are read, not squeezed: each column at least 200 px wide."""
    found = []
    for column in ("signal_link", "playbooks"):
        widths = tab.evaluate(f"[...document.querySelectorAll('#result_list td.field-{column}')].map(c => c.getBoundingClientRect().width)")
        if not widths or min(widths) < 200:
            found.append(f"column {column} {widths} px wide")
    return found


def _category_tree(tab) -> list[str]:
    """Collapsed by default: every node a closed <details>, the page a screen or so high."""
    found = []
    nodes = tab.locator("#category-tree details").count()
    opened = tab.locator("#category-tree details[open]").count()
    height = tab.evaluate("document.documentElement.scrollHeight")
    if not nodes or opened:
        found.append(f"{nodes} nodes, {opened} open on arrival")
    if height > 1600:
        found.append(f"{height} px tall collapsed")
    return found


@pytest.fixture(params=list(LOCALES))
def lang(request):
    return request.param


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_every_desk_page(live_server, store, lang):
    from django.contrib.auth.models import User

    data = _data_words()
    pages = _pages(store)
    problems: list[str] = []
    folder = ARTIFACTS / "screenshots" / lang
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    assert User.objects.filter(username=OPERATOR).exists()
    with chromium_tab(locale=LOCALES[lang]) as tab:
        log_in(tab, live_server.url, OPERATOR, PASSWORD)
        tab.wait_for_selector("#content")
        for name, path in pages:
            response = tab.goto(live_server.url + path)
            assert response is not None and response.status == 200, (name, path, response and response.status)
            tab.wait_for_selector("#content")
            shot = folder / f"{name}.png"
            tab.screenshot(path=str(shot), full_page=True)
            written.append(shot)
            width = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if width[0] > width[1] or width[1] != VIEWPORT["width"]:
                problems.append(f"{name}: {width[0]} px wide in a {width[1]} px window")
            title = tab.locator("#content h1").all_inner_texts()
            if lang == "zh-Hans" and any("选择" in t or "来修改" in t for t in title):
                problems.append(f"{name}: Django's list title {title}")
            problems.extend(f"{name}: {p}" for p in _page_parts(tab, name))
            if name == "governance-suggestion-list":
                problems.extend(f"{name}: {p}" for p in _suggestion_columns(tab))
            if name == "memories-category-list":
                problems.extend(f"{name}: {p}" for p in _category_tree(tab))
            # Collapsed parts are text a reader opens: they are checked too.
            tab.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            if name == "memories-category-list":
                points = tab.locator("#category-tree .points li").all_inner_texts()
                if not points or len(points) != len(set(points)):
                    problems.append(f"{name}: {len(points)} abstracts in the tree, {len(set(points))} different")
            texts = tab.evaluate(VISIBLE_TEXT)
            found = _zh_problems(texts, data) if lang == "zh-Hans" else _en_problems(texts)
            problems.extend(f"{name}: {p}" for p in dict.fromkeys(found))
    assert all(p.stat().st_size > 5_000 for p in written)
    # The findings beside the screenshots, so a failing run can be read page by page.
    (folder / "problems.txt").write_text("\n".join(problems) + "\n", encoding="utf-8")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
