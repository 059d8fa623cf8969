"""Which decision buttons an item's page offers, each saying what it does. A parked
candidate is approved or rejected; a sampled audit is a verdict on an automatic decision,
so its buttons name that decision and what the verdict changes in memory."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext

from desk.admin.review_decision import Verdict
from governance.constants import Action, ReviewKind
from governance.models import ReviewItem
from governance.review.audit import review_can_overturn_write


@dataclass(frozen=True)
class VerdictButton:
    value: str
    label: str
    explains: str
    css: str
    needs_note: bool
    writes: bool = False  # the page hides it from a reviewer when it would write an L1 rule


def _auto_action(item: ReviewItem) -> str:
    return (item.payload or {}).get("auto_action") or ""


def auto_action_label(item: ReviewItem) -> str:
    """The automatic decision a sampled audit asks about, translated ("" for other kinds)."""
    if item.kind != ReviewKind.SAMPLED_AUDIT:
        return ""
    auto = _auto_action(item)
    return str(Action(auto).label) if auto in Action.values else auto


def review_verdicts(item: ReviewItem) -> list[VerdictButton]:
    if item.kind != ReviewKind.SAMPLED_AUDIT:
        return [
            VerdictButton(
                Verdict.APPROVE,
                gettext("Approve"),
                gettext("Writes the candidate through the governed write path."),
                "approve",
                False,
                writes=True,
            ),
            VerdictButton(
                Verdict.REJECT, gettext("Reject"), gettext("Nothing is written; the note is kept with the event."), "reject", True
            ),
        ]
    auto, shown = _auto_action(item), auto_action_label(item)
    buttons = [
        VerdictButton(
            Verdict.CONFIRM,
            str(Verdict.CONFIRM.label),
            gettext("The automatic %(action)s was right. Memory stays as it is; the verdict counts in the guard metrics.")
            % {"action": shown},
            "approve",
            False,
        ),
    ]
    if auto == Action.REJECT:
        if review_can_overturn_write(item):
            buttons.append(
                VerdictButton(
                    Verdict.OVERTURN_WRITE,
                    str(Verdict.OVERTURN_WRITE.label),
                    gettext(
                        "The refusal was wrong: writes the refused candidate now, through the governed write path, "
                        "with you as the reviewer in its trace."
                    ),
                    "overturn",
                    False,
                    writes=True,
                )
            )
        buttons.append(
            VerdictButton(
                Verdict.OVERTURN_KEEP,
                str(Verdict.OVERTURN_KEEP.label),
                gettext("The refusal was wrong, but the memory is still not worth keeping: nothing is written; the verdict is recorded."),
                "reject",
                True,
            )
        )
    else:
        buttons.append(
            VerdictButton(
                Verdict.OVERTURN_ARCHIVE,
                str(Verdict.OVERTURN_ARCHIVE.label),
                gettext("The automatic %(action)s was wrong: the memory it wrote is archived (kept in the history, no longer recalled).")
                % {"action": shown},
                "reject",
                True,
            )
        )
    return buttons
