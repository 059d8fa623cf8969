"""What each decision on a review item will do, in words, before the reviewer clicks:
"approving writes version 2 of #44 and closes #44 · L2 · brand_A".

The sentences follow what the review services do (governance.review.services and
governance.review.audit): approval writes the item's candidate through the governed write,
superseding the memory it names when that memory is still active; a promotion writes an
L4 template from its source; a consolidation writes a semantic memory linked to its
episodes; an item without a candidate records the verdict only; a sampled audit is
confirmed (nothing changes) or overturned."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext

from desk.admin.review_compare import review_candidate
from governance.constants import Action, ReviewKind
from governance.models import ReviewItem
from governance.review.audit import review_can_overturn_write
from memories.constants import Status
from memories.models import Memory


@dataclass(frozen=True)
class Consequence:
    verdict: str  # approve, reject, confirm, overturn: the id the page gives the line
    text: str


def _scope(layer: str, advertiser: str | None) -> str:
    return " · ".join(p for p in (layer or "—", advertiser or gettext("global")))


def _ids(ids: list[int]) -> str:
    return "、".join(f"#{i}" for i in ids)


def _write_text(item: ReviewItem) -> str:
    """What writing the item's candidate does, without the "after approval" lead."""
    candidate = review_candidate(item)
    layer, advertiser = candidate.get("layer") or "", candidate.get("advertiser", item.advertiser)
    scope = _scope(layer, advertiser)
    if item.kind == ReviewKind.PROMOTION:
        source = (item.payload or {}).get("source_ids") or ([item.memory_id] if item.memory_id else [])
        return gettext("writes an L4 template, from %(sources)s · %(scope)s") % {"sources": _ids(source), "scope": scope}
    if item.kind == ReviewKind.CONSOLIDATION:
        episodes = (item.payload or {}).get("source_ids") or []
        return gettext("writes one semantic memory drawn from %(count)s episodes (%(sources)s) · %(scope)s") % {
            "count": len(episodes),
            "sources": _ids(episodes),
            "scope": scope,
        }
    supersedes = candidate.get("supersedes")
    if supersedes:
        old = Memory.objects.filter(pk=supersedes).only("pk", "version", "status").first()
        if old is not None and old.status == Status.ACTIVE:
            return gettext("writes version %(version)s of #%(id)s and closes #%(id)s · %(scope)s") % {
                "version": old.version + 1,
                "id": old.pk,
                "scope": scope,
            }
        return gettext("writes a new memory (#%(id)s, which it would have replaced, is no longer active) · %(scope)s") % {
            "id": supersedes,
            "scope": scope,
        }
    return gettext("writes a new memory · %(scope)s") % {"scope": scope}


def review_consequences(item: ReviewItem) -> list[Consequence]:
    """One line per decision the page offers, in the order of its buttons."""
    candidate = review_candidate(item)
    if item.kind == ReviewKind.SAMPLED_AUDIT:
        auto = (item.payload or {}).get("auto_action") or ""
        shown = str(Action(auto).label) if auto in Action.values else auto
        memory = f" #{item.memory_id}" if item.memory_id else ""
        lines = [
            Consequence(
                "confirm",
                gettext("Confirming: the automatic %(action)s%(memory)s was right; memory stays as it is.")
                % {"action": shown, "memory": memory},
            )
        ]
        if auto == Action.REJECT and review_can_overturn_write(item):
            lines.append(Consequence("overturn", gettext("Overturning and writing: %(write)s.") % {"write": _write_text(item)}))
        elif auto in {Action.WRITE, Action.UPDATE} and item.memory_id:
            lines.append(
                Consequence(
                    "overturn",
                    gettext("Overturning: archives%(memory)s (kept in the history, no longer recalled).") % {"memory": memory},
                )
            )
        else:
            lines.append(Consequence("overturn", gettext("Overturning: records the verdict; nothing is written.")))
        return lines
    if not candidate:
        approve = gettext("After approval: the verdict is recorded; no memory is written or changed.")
    elif not candidate.get("layer"):
        approve = gettext("Approval is not possible: the candidate has no layer to write to. Reject it, or resend it with a layer.")
    else:
        approve = gettext("After approval: %(write)s.") % {"write": _write_text(item)}
    reject = gettext("After rejection: nothing is written; the note is kept with the item.")
    return [Consequence("approve", approve), Consequence("reject", reject)]


def review_has_automatic_decision(item: ReviewItem) -> bool:
    """Whether something was decided without a person (a write, an update or a refusal),
    so that "was the automatic decision right?" has something to judge. A parked item was
    sent to a person instead of being decided."""
    return (item.payload or {}).get("auto_action") in {Action.WRITE, Action.UPDATE, Action.REJECT}
