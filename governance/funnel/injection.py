"""Text that gives orders to the system instead of stating a fact.

Memory content is untrusted: it is later shown to models inside our prompts and recall
blocks. A proposal that tries to steer them (ignore the rules, pose as the system, close
our tags, ask to be written to L1 or approved) is quarantined for a person, whatever a
judge would say. Patterns cover Chinese and English, after width and case folding."""

from __future__ import annotations

import re
import unicodedata

_PATTERNS: dict[str, list[str]] = {
    "ignore_rules": [
        r"(?:忽略|无视|忘记|忘掉|跳过|绕过|不要管)\s*(?:掉)?\s*(?:之前|以上|上面|上述|前面|先前|所有|全部|一切|任何)?\s*(?:的)?\s*(?:所有|全部)?\s*(?:的)?\s*(?:规则|指令|指示|约束|限制|要求|审核|设定|提示)",
        r"\b(?:ignore|disregard|forget|bypass|skip|override)\b.{0,30}\b(?:instructions?|rules?|guardrails?|polic(?:y|ies)|prompts?|constraints?|review)\b",
    ],
    "role_marker": [
        r"(?:^|[\s\[(<{>])(?:system|assistant|developer)\s*[:：]",
        r"(?:系统|管理员|开发者)\s*(?:指令|消息|提示)\s*[:：]",
        r"<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>",
        r"\[/?\s*(?:INST|SYS)\s*\]",
        r"#{2,}\s*(?:system|instruction)",
        r"\byou are now\b",
        r"你现在是",
        r"从现在开始你是",
    ],
    "closing_tag": [
        r"<\s*/\s*(?:lingix-memory|memory|memories|untrusted_data|context|system|instructions?)\s*>",
        r"<\s*(?:lingix-memory|untrusted_data|system)\b",
    ],
    "write_order": [
        r"(?:写入|写进|存入|存到|放进|升级到|提升到)\s*(?:到)?\s*L[1-4]",
        r"\b(?:write|store|save|put|promote|save)\b.{0,20}\b(?:to|into|in|as)\s+(?:an?\s+)?L[1-4]\b",
        r"(?:作为|当作|设为)\s*(?:核心规则|L1)",
    ],
    "approval_order": [
        r"(?:直接|自动|立即|请)?\s*(?:批准|通过|放行)\s*(?:这条|此条|本条|该条)",
        r"(?:无需|不用|跳过)\s*(?:人工)?\s*(?:审核|复核|审批)",
        r"\b(?:approve|accept|whitelist)\s+(?:this|it|the (?:memory|item|request))\b",
        r"\b(?:no|skip|without)\s+(?:human\s+)?review\b",
    ],
}
_COMPILED = {kind: [re.compile(p, re.IGNORECASE | re.MULTILINE) for p in patterns] for kind, patterns in _PATTERNS.items()}
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH)


def injection_hits(text: str) -> list[tuple[str, str]]:
    """(kind, matched text) for every order-giving pattern found, at most one per kind."""
    folded = _fold(text or "")
    found = []
    for kind, patterns in _COMPILED.items():
        for pattern in patterns:
            match = pattern.search(folded)
            if match:
                found.append((kind, match.group(0).strip()[:60]))
                break
    return found
