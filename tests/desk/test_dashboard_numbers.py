"""The dashboard's numbers agree with each other and with the database: the active total is
the sum of the layers, the memory statuses add up to the total, the hero's queue count, the
open-items figure, the kinds and the waiting-time buckets are one number, and every figure is
shown with thousands separators. Over the demo store seed-demo leaves (its open items of
every kind)."""

import re

import pytest
from django.urls import reverse

from desk.templatetags.lingix_admin import number
from governance.constants import ReviewStatus
from governance.models import ReviewItem
from lingix_site.demo import demo_load_once
from memories.constants import Status
from memories.models import Memory


def _n(page: str, pattern: str) -> list[int]:
    return [int(n) for n in re.findall(pattern, page)]


@pytest.fixture
def store(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        assert demo_load_once()["loaded"]


def test_the_dashboard_numbers_agree_with_the_database(reviewer_client, store):
    # One store for both languages: loading and embedding the demo is most of the time.
    for language in ("zh-hans", "en"):
        _check_dashboard(reviewer_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE=language).content.decode())


def _check_dashboard(page: str) -> None:

    active = Memory.objects.filter(status=Status.ACTIVE)
    [shown_active] = _n(page, r'id="kpi-active"><b data-n="(\d+)"')
    layers = {layer: n for layer, n in re.findall(r'id="kpi-(L[1-4])"><b data-n="(\d+)"', page)}
    assert shown_active == active.count() == sum(int(n) for n in layers.values())
    for layer, n in layers.items():
        assert int(n) == active.filter(layer=layer).count(), layer

    statuses = dict(re.findall(r'data-status="(\w+)" data-n="(\d+)"', page))
    [total] = _n(page, r'id="memory-total" data-n="(\d+)"')
    assert total == Memory.objects.count() == sum(int(n) for n in statuses.values())
    for status, n in statuses.items():
        assert int(n) == Memory.objects.filter(status=status).count() > 0, status
    [embedded] = _n(page, r'id="embedded" data-n="(\d+)"')
    assert 0 < embedded <= total

    open_items = ReviewItem.objects.filter(status=ReviewStatus.OPEN)
    [hero] = _n(page, r'id="hero-open" data-n="(\d+)"')
    [kpi_open] = _n(page, r'id="kpi-open-reviews"><b data-n="(\d+)"')
    kinds = dict(re.findall(r'data-kind="(\w+)" data-n="(\d+)"', page))
    chart = page[page.index('id="chart-queue"') : page.index('id="guard-metrics"')]
    buckets = _n(chart, r'<rect data-n="(\d+)"')
    assert hero == kpi_open == open_items.count() == sum(int(n) for n in kinds.values()) == sum(buckets) >= 4
    for kind, n in kinds.items():
        assert int(n) == open_items.filter(kind=kind).count(), kind

    # Every figure is shown formatted, never as a raw float.
    assert re.search(rf'id="kpi-active"><b data-n="\d+">{re.escape(number(shown_active))}</b>', page)
    assert not re.search(r"\d\.\d{3,}", re.sub(r"<[^>]+>", " ", page[page.index('id="lingix-dashboard"') :]))


def test_numbers_are_shown_with_thousands_separators_and_one_decimal():
    assert (number(12480), number(3), number(3.571428), number(2.0), number(1234567.25)) == ("12,480", "3", "3.6", "2", "1,234,567.2")
