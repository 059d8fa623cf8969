"""The request body parser of the agent API: strict JSON for every endpoint."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja.parser import Parser

from textrules.strict_json import strict_loads


class StrictJsonParser(Parser):
    """Bodies go through textrules.strict_json, so NaN, 1e999, huge integers, deep nesting
    and lone surrogates never reach a schema or a service. ninja wraps any parser error
    in a 400 "Cannot parse request body"; errors.py unwraps ours into a 422 naming the
    problem and its JSON path."""

    def parse_body(self, request: HttpRequest) -> Any:
        return strict_loads(request.body)
