"""The API's JSON: Chinese as UTF-8 (not \\u escapes), times in the configured zone with
their offset (ISO 8601), so an agent and a person reading the same answer see one clock."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja.renderers import JSONRenderer
from ninja.responses import NinjaJSONEncoder

from memories.timefmt import local_time


class LocalTimeEncoder(NinjaJSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return local_time(o).isoformat()
        return super().default(o)


class Utf8JSONRenderer(JSONRenderer):
    encoder_class = LocalTimeEncoder

    def render(self, request: HttpRequest, data: Any, *, response_status: int) -> bytes:
        text = json.dumps(data, cls=self.encoder_class, ensure_ascii=False)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate cannot be UTF-8; \u escapes keep such an answer valid JSON.
            return json.dumps(data, cls=self.encoder_class).encode("ascii")
