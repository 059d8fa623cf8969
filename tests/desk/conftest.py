# The browser tests restore the migrated roles with serialized_rollback, which re-inserts
# content types by id. A plain transactional test before them re-creates those rows under
# new ids, so tests/conftest.py runs every serialized test ahead of the other transactional
# tests, wherever its module sorts.
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.conf import settings

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
VIEWPORT = {"width": 1440, "height": 900}

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium (make test installs it)"),
]


def import_demo(label: str, *, embed: bool) -> None:
    """The bundled demo set, so the admin pages have memories to show."""
    from governance.write.imports import memories_import
    from lingix_site.demo import DEMO_FILE

    memories_import(lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="test", label=label, embed=embed)


@contextlib.contextmanager
def chromium_tab(*, locale: str = "zh-CN", viewport: dict[str, int] = VIEWPORT) -> Iterator[Any]:
    """One tab of Debian's Chromium, closed with the test's database connections."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # between browser steps are ordinary synchronous reads.
    with mock.patch.dict(os.environ, {"DJANGO_ALLOW_ASYNC_UNSAFE": "true"}), sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
        )
        tab = browser.new_context(locale=locale, viewport=viewport).new_page()
        tab.set_default_timeout(20_000)
        try:
            yield tab
        finally:
            # While Playwright's loop runs, Django keys connections by that context, so the
            # ORM reads the test made have a connection of their own: close it here, or
            # PostgreSQL refuses to drop the test database with a session still open.
            connections.close_all()
            browser.close()


def log_in(tab: Any, base_url: str, username: str, password: str, *, then: str = "/admin/") -> None:
    """Through the admin's login form, as a person would; the caller waits for the page it expects."""
    tab.goto(f"{base_url}/admin/login/?next={then}")
    tab.fill("#id_username", username)
    tab.fill("#id_password", password)
    tab.click("input[type=submit]")


def screenshot(target: Any, name: str, **options: Any) -> Path:
    """A page or one element of it, written to test-artifacts/<name>."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    target.screenshot(path=str(path), **options)
    return path
