"""The factuality tool verifier (seed 000): objective checks that raise or lower the
judge's grounding. Tool conclusions win over the model's own opinion.

| tool result                         | grounding                 |
| numbers match and recur             | grounded                  |
| numbers match once                  | weakly_grounded           |
| numbers contradict the data         | unsupported               |
| no data                             | the judge's view stands   |
"""

from __future__ import annotations

from typing import Any

from governance.funnel.types import Candidate
from textrules import signals as s

TIMELY = s._rx(r"当前", r"最新", r"近期", r"目前", r"最近", r"\bcurrent(?:ly)?\b", r"\blatest\b", r"\brecent(?:ly)?\b", r"\bnow\b")


def should_verify(c: Candidate) -> bool:
    t = c.content
    return bool(s.numbers(t)) or s.has(s.EFFECT, t) or s.has(s.METRIC, t) or s.has(TIMELY, t) or bool(c.related or [])


def campaign_analysis(c: Candidate) -> dict[str, Any]:
    claimed = s.numbers(c.content)
    evidence = s.numbers_in_data(c.data)
    if not claimed or not evidence:
        return {"result": "no_data", "claimed": claimed[:8]}
    match = s.match_numbers(claimed, evidence)
    occurrences = c.data.get("occurrences") if isinstance(c.data, dict) else None
    repeats = max(match.repeats, int(occurrences) if isinstance(occurrences, (int, float)) and not isinstance(occurrences, bool) else 0)
    if not match.matched:
        result = "mismatch"
    elif repeats >= 2:
        result = "match_repeated"
    else:
        result = "match_once"
    return {"result": result, "claimed": claimed[:8], "matched": match.matched[:8], "unmatched": match.unmatched[:8], "repeats": repeats}


def memory_search(c: Candidate) -> dict[str, Any]:
    if not c.related:
        return {"result": "no_data"}
    return {"result": "found", "related": [{"id": r["memory"].pk, "cosine": r["cosine"], "relation": r["relation"]} for r in c.related]}


def industry_benchmark(c: Candidate) -> dict[str, Any]:
    # No industry-wide data source is wired in; the seed's default is "no data".
    return {"result": "no_data"}


_GROUNDING = {"match_repeated": "grounded", "match_once": "weakly_grounded", "mismatch": "unsupported"}


def verify(c: Candidate) -> dict[str, Any]:
    """Run the three tools; 'grounding' is the tool verdict, or None when they found no data."""
    if not should_verify(c):
        return {"ran": False, "grounding": None}
    campaign = campaign_analysis(c)
    return {
        "ran": True,
        "campaign_analysis": campaign,
        "memory_search": memory_search(c),
        "industry_benchmark": industry_benchmark(c),
        "grounding": _GROUNDING.get(campaign["result"]),
    }
