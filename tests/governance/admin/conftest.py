# The browser tests restore the migrated roles with serialized_rollback, which re-inserts
# content types by id. A plain transactional test before them re-creates those rows under
# new ids, so every serialized browser test lives here, ahead of the other transactional
# tests in collection order.
import contextlib

import pytest
from django.contrib.auth.models import Group


def _staff(django_user_model, username: str, group: str):
    user = django_user_model.objects.create_user(username=username, password="pw-" + username, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def reviewer(db, django_user_model):
    return _staff(django_user_model, "reviewer_li", "reviewer")


@pytest.fixture
def second_reviewer(db, django_user_model):
    return _staff(django_user_model, "reviewer_wang", "reviewer")


@pytest.fixture
def operator(db, django_user_model):
    return _staff(django_user_model, "operator_zhao", "operator")


def _client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviewer_client(reviewer):
    return _client_for(reviewer)


@pytest.fixture
def second_reviewer_client(second_reviewer):
    return _client_for(second_reviewer)


@pytest.fixture
def operator_client(operator):
    return _client_for(operator)


@contextlib.contextmanager
def chromium_tab(*, locale: str = "zh-CN"):
    """One tab of Debian's Chromium at 1440 x 900, closed with the test's database connections."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
        )
        tab = browser.new_context(locale=locale, viewport={"width": 1440, "height": 900}).new_page()
        tab.set_default_timeout(20_000)
        try:
            yield tab
        finally:
            connections.close_all()
            browser.close()
