"""Realistic request examples for every endpoint of the OpenAPI document (shown in
/api/v1/docs). They are added to the generated schema in one pass, so the endpoint
declarations stay as they are; an endpoint that already declares examples (trigger,
one per event type) keeps its own."""

from __future__ import annotations

from typing import Any

from ninja import NinjaAPI

# Field examples replace what Swagger would otherwise invent from a field's pattern.
FIELD_EXAMPLES: dict[str, Any] = {
    "advertiser": "brand_A",
    "business_line": "医药OTC",
    "idempotency_key": "openclaw-run-20261111-0042",
    "query": "双11 大促期间 出价上限怎么设",
    "note": "与品牌方确认过：出价上限以合同为准",
}

REQUEST_BODIES: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("post", "/search"): {
        "bid_cap": {
            "summary": "出价上限 for one advertiser",
            "value": {"query": "双11 大促期间 出价上限怎么设", "advertiser": "brand_A", "layers": ["L1", "L2"], "top_k": 5},
        },
        "cold_start": {
            "summary": "Cold start, English and Chinese mixed",
            "value": {"query": "美妆 新品 冷启动 ROI too low in week one", "business_line": "美妆", "top_k": 8},
        },
    },
    ("post", "/recall"): {
        "conversation": {
            "summary": "Auto-recall from the last user turn",
            "value": {
                "messages": [
                    {"role": "user", "content": "brand_A 的感冒药计划明天要冷启动，出价先定多少？"},
                ],
                "advertiser": "brand_A",
                "budget_tokens": 600,
            },
        },
        "query": {"summary": "A direct query", "value": {"query": "医药OTC 投放合规红线", "advertiser": "brand_A"}},
    },
    ("post", "/ingest"): {
        "confirmed_by_user": {
            "summary": "A strategy the user confirmed (role-tagged turns)",
            "value": {
                "messages": [
                    {"role": "assistant", "content": "建议把美妆新品的出价上限从 1.5元 调到 2元，先跑 3 天看 ROI。"},
                    {"role": "user", "content": "确认，按这个执行，ROI 低于 1.8 就回调。"},
                ],
                "advertiser": "brand_A",
                "business_line": "美妆",
                "source": "user",
                "idempotency_key": "openclaw-run-20261111-0042",
            },
        },
        "text": {
            "summary": "Free text from a tool",
            "value": {
                "text": "双11 预热期 brand_A 直播间 CTR 比平日高 35%，20:00-23:00 流量最集中，建议该时段加价 15%。",
                "advertiser": "brand_A",
                "source": "tool",
            },
        },
    },
    ("post", "/review/{item_id}/approve"): {
        "approve": {
            "summary": "Approve after checking the evidence",
            "value": {"note": "核对过投放后台数据，ROI 2.3 属实", "decision_correct": True},
        },
    },
    ("post", "/review/{item_id}/reject"): {
        "reject": {
            "summary": "Reject with the reason",
            "value": {"note": "医药OTC 不得使用“根治”等绝对化用语，这条经验不能入库", "decision_correct": False},
        },
    },
    ("post", "/distill"): {
        "session": {
            "summary": "One agent session, role-tagged",
            "value": {
                "session_id": "openclaw-session-20261111-brand_A",
                "messages": [
                    {"role": "user", "content": "brand_A 的美妆新品冷启动，前三天 ROI 只有 0.9，太低了"},
                    {"role": "assistant", "content": "建议把人群从泛美妆收窄到 25-35 岁油皮，出价先下调 10%。"},
                    {"role": "user", "content": "同意，就这么调，以后冷启动都先收窄人群。"},
                ],
                "advertiser": "brand_A",
                "business_line": "美妆",
            },
        },
    },
    ("post", "/reflect"): {
        "empty": {"summary": "No body needed", "value": {}},
    },
}

# as_of with Beijing's offset (Asia/Shanghai, the default TIME_ZONE): the evening of 双11.
PARAMETER_EXAMPLES: dict[str, Any] = {
    "memory_id": 42,
    "item_id": 7,
    "limit": 20,
    "advertiser": "brand_A",
    "as_of": "2026-11-11T20:00:00+08:00",
}


def add_request_examples(schema: dict[str, Any]) -> dict[str, Any]:
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            key = (method, _relative(path))
            for parameter in operation.get("parameters", []):
                if parameter.get("name") in PARAMETER_EXAMPLES:
                    parameter.setdefault("example", PARAMETER_EXAMPLES[parameter["name"]])
            examples = REQUEST_BODIES.get(key)
            if not examples:
                continue
            body = operation.setdefault("requestBody", {"content": {"application/json": {"schema": {"type": "object"}}}})
            media = body.setdefault("content", {}).setdefault("application/json", {})
            media.setdefault("examples", examples)
    for component in schema.get("components", {}).get("schemas", {}).values():
        for name, prop in component.get("properties", {}).items():
            if name in FIELD_EXAMPLES:
                _set_example(prop, FIELD_EXAMPLES[name])
    return schema


def _set_example(prop: dict[str, Any], value: Any) -> None:
    prop["examples"] = [value]
    for option in prop.get("anyOf", []):
        if option.get("type") == "string":
            option["examples"] = [value]


def _relative(path: str) -> str:
    return "/" + path.split("/api/v1/", 1)[-1].lstrip("/") if "/api/v1/" in path else path


class DocumentedNinjaAPI(NinjaAPI):
    """NinjaAPI whose OpenAPI document carries the request examples above."""

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        return add_request_examples(super().get_openapi_schema(*args, **kwargs))

    def get_openapi_operation_id(self, operation: Any) -> str:
        # The view's own name, so moving a view between router modules keeps its id.
        return operation.view_func.__name__
