"""memory show ID: one memory with its versions (what each changed, who decided it and
their note), its claim, the turns it came from and the review items about it."""

from __future__ import annotations

from typing import Any

from governance.write.hard_rules import WriteOrigin
from memories.cli.base import CliError, Subcommand, one_line


def _show_args(parser) -> None:
    parser.add_argument("id", type=int, help="the memory (any version of it)")
    parser.add_argument(
        "--as-of", help="ISO-8601 time: the version valid then and the versions that existed by then (e.g. 2026-11-11T12:00+08:00)"
    )


def claim_text(raw: dict[str, Any] | None) -> str:
    """A stored claim (textrules.claims Claim.as_dict) as one line: what it is about, the
    lever, the value and how it was said. Empty when the version has no claim."""
    from textrules.claims import Claim

    if not raw:
        return ""
    claim = Claim.from_dict(raw)
    sub = claim.subject
    about = [f"advertiser {sub.advertiser}"] if sub.advertiser else []
    for label, values in (
        ("plan", sub.plans),
        ("category", sub.categories),
        ("channel", sub.channels),
        ("audience", sub.audiences),
        ("weekday", [str(d) for d in sub.weekdays]),
        ("time", ["–".join(f"{int(x):02d}:{int(round(x % 1 * 60)):02d}" for x in slot) for slot in sub.time_slots]),
        ("daypart", sub.dayparts),
        ("event", sub.events),
        ("place", sub.places),
    ):
        if values:
            about.append(f"{label} {'/'.join(sorted(values))}")
    value = [q.label() for q in claim.quantities]
    if claim.direction:
        value.append("raise" if claim.direction > 0 else "lower")
    if claim.switch:
        value.append("switch on" if claim.switch > 0 else "pause")
    if claim.polarity < 0 and not claim.switch:
        value.append("negated")
    value += [f"{metric} {'↑' if sign > 0 else '↓'}" for metric, sign in sorted(claim.trends)]
    value += [f"'{term}' {'allowed' if side > 0 else 'forbidden'}" for term, side in sorted(claim.terms) if side]
    parts = [
        f"subject: {', '.join(about) or '—'}",
        f"lever: {', '.join(sorted(claim.levers) + sorted(f'metric {m}' for m in claim.metrics)) or '—'}",
        f"value: {', '.join(value) or '—'}",
        f"stance: {claim.stance}",
    ]
    if claim.conditions:
        parts.append(f"when: {', '.join(sorted(claim.conditions))}")
    return " · ".join(parts)


def _show_run(args) -> dict[str, Any]:
    from governance.intake.selectors import memory_source
    from governance.review.selectors import memory_reviews, version_deciders
    from memories.cli.commands import parse_as_of
    from memories.presenters import memory_dict
    from memories.selectors import memory_as_of, memory_get, memory_history, memory_history_as_of
    from memories.timefmt import iso_local
    from textrules.word_diff import word_changes

    if args.id < 1:
        raise CliError(f"memory ids start at 1, got {args.id}")
    at = parse_as_of(args.as_of)
    memory = memory_get(memory_id=args.id)
    if at is not None:
        memory = memory_as_of(memory=memory, at=at)
        history = memory_history_as_of(memory=memory, at=at)
    else:
        history = memory_history(memory=memory, advertisers=None)
    deciders = version_deciders(versions=history)
    versions, previous = [], None
    for version in history:
        changes = word_changes(previous.content, version.content) if previous is not None else []
        versions.append(
            {
                "id": version.pk,
                "version": version.version,
                "status": version.status,
                "source": version.source,
                "valid_from": iso_local(version.valid_from),
                "valid_to": iso_local(version.valid_to),
                "content": version.content,
                "changes": [c.as_dict() for c in changes],
                "change": "; ".join(c.short() for c in changes),
                "decided_by": deciders[version.pk],
            }
        )
        previous = version
    return {
        **({"as_of": at.isoformat()} if at is not None else {}),
        **memory_dict(memory),
        "valid_from": iso_local(memory.valid_from),
        "valid_to": iso_local(memory.valid_to),
        "claim": memory.claim or {},
        "claim_text": claim_text(memory.claim),
        "versions": versions,
        # Not "source": memory_dict's source says who produced the text (user, tool, …).
        "came_from": memory_source(memory=memory),
        "reviews": [
            {
                "id": item.pk,
                "kind": item.kind,
                "status": item.status,
                "memory_id": item.memory_id,
                "related_memory_id": item.related_memory_id,
                "reviewer": item.reviewer_name or None,
                "note": item.note,
                "decision_correct": item.decision_correct,
                "created_at": iso_local(item.created_at),
                "decided_at": iso_local(item.decided_at),
            }
            for item in memory_reviews(memory_ids=[v.pk for v in history])
            if at is None or item.created_at <= at
        ],
    }


_ORIGIN_WORDS = {
    WriteOrigin.APPROVAL: "approved by {by}",
    WriteOrigin.PROMOTION: "promoted, approved by {by}",
    WriteOrigin.ADMIN_EDIT: "edited by {by}",
    WriteOrigin.IMPORT: "trusted import by {by}",
    WriteOrigin.FUNNEL: "written by the funnel for {by}",
}


def _decided(version: dict[str, Any]) -> str:
    entry = version["decided_by"]
    if entry["origin"] is None:
        return f"no event recorded (source {version['source']})"
    if entry["origin"] == WriteOrigin.FUNNEL and not entry["by"]:
        text = f"written by the funnel (source {version['source']})"
    else:
        text = _ORIGIN_WORDS.get(entry["origin"], entry["origin"]).format(by=entry["by"] or "—")
    if entry["review_item_id"]:
        text += f" (review #{entry['review_item_id']})"
    return text + (f', note "{one_line(entry["note"], 80)}"' if entry["note"] else "")


def _clock(iso: str | None) -> str:
    return iso[:16].replace("T", " ") if iso else "now"


def _show_render(result: dict[str, Any]) -> str:
    from memories.timefmt import zone_label

    r = result
    head = f"#{r['id']} {r['layer']} · {r['advertiser'] or 'global'} · {r['status']} · v{r['version']}"
    if r.get("kind"):
        head += f" · {r['kind']}"
    if r.get("category_path") or r.get("category"):
        head += f" · {r.get('category_path') or r['category']}"
    lines = [head + (f"  (as of {r['as_of']})" if "as_of" in r else ""), f"  {one_line(r['content'], 400)}"]
    if r["claim_text"]:
        lines.append(f"  claim  {r['claim_text']}")
    lines.append(f"versions (times in {zone_label()}):")
    for v in r["versions"]:
        lines.append(f"  v{v['version']} #{v['id']} {v['status']:<11} {_clock(v['valid_from'])} → {_clock(v['valid_to'])}  {_decided(v)}")
        lines.append(f"      {'change: ' + v['change'] if v['change'] else one_line(v['content'], 100)}")
    source = r["came_from"]
    if source["turns"]:
        session = f"session {source['session_id']}" if source["session_id"] else "no session id"
        lines.append(f"source: {session}, event #{source['event_id']}")
        lines += [f"  [{t['index']}] {t['role']}: {one_line(t['content'], 100)}" for t in source["turns"]]
    elif source["raw_text"]:
        lines.append(f"source: event #{source['event_id']}: {one_line(source['raw_text'], 100)}")
    else:
        lines.append("source: none recorded")
    for item in r["reviews"]:
        who = f" by {item['reviewer']}" if item["reviewer"] else ""
        note = f': "{one_line(item["note"], 80)}"' if item["note"] else ""
        lines.append(f"review #{item['id']} {item['kind']} {item['status']}{who} {_clock(item['decided_at'] or item['created_at'])}{note}")
    return "\n".join(lines)


COMMANDS = [
    Subcommand(
        "show",
        "one memory: its versions with what changed and who decided, its claim, source turns and review items",
        _show_args,
        _show_run,
        _show_render,
    ),
]
