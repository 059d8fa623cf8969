"""Cells the desk's lists share: long text clamped to two lines with the whole text on
hover, and times in the configured zone with the zone named."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.html import format_html, strip_tags
from django.utils.safestring import SafeString, mark_safe


def clamped(text: str, *, lines: int = 2, css: str = "", data: bool = False) -> SafeString:
    """Shows `lines` lines; the full text is the hover title and the screen-reader text.
    `data` marks the text as the store's own words (see user_data)."""
    text = text or ""
    mark = mark_safe(" data-user-data") if data else ""
    # The hover title is plain text, whatever marks the shown text carries.
    return format_html('<div class="lingix-clamp lingix-clamp-{} {}" title="{}"{}>{}</div>', lines, css, plain_text(text), mark, text)


def plain_text(text: str) -> str:
    """Markup the desk made (a SafeString) as the words it shows; anything else is already
    plain, and stripping "tags" from it would eat a user's "a<b … c>d"."""
    return html.unescape(strip_tags(text)) if isinstance(text, SafeString) else text


def user_data(text: Any) -> SafeString:
    """Words the store holds as they were given (memory content, names, notes): the desk shows
    them untranslated, and the attribute tells them apart from the desk's own words (the
    language checks of tests/desk skip them)."""
    return format_html("<span data-user-data>{}</span>", text)


def zone_label(moment: datetime | None = None) -> str:
    """The configured zone as a reader sees it: name and UTC offset, e.g. Asia/Shanghai (UTC+08:00)."""
    local = timezone.localtime(moment or timezone.now())
    offset = local.strftime("%z")
    return f"{timezone.get_current_timezone_name()} (UTC{offset[:3]}:{offset[3:]})"


def local_time(moment: datetime | None, *, with_year: bool = False) -> SafeString | str:
    """A short local time for a list cell; the hover title gives the full time with offset."""
    if moment is None:
        return "—"
    local = timezone.localtime(moment)
    shown = local.strftime("%Y-%m-%d %H:%M" if with_year else "%m-%d %H:%M")
    return format_html(
        '<time datetime="{}" title="{} {}">{}</time>', local.isoformat(), local.strftime("%Y-%m-%d %H:%M:%S"), zone_label(moment), shown
    )


def local_time_text(moment: datetime | None) -> str:
    """The full local time with the zone, as plain text (for titles and exports)."""
    if moment is None:
        return "—"
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M} {zone_label(moment)}"
