"""A reviewer's decision: the form, the four-eyes check, and the one call into the review
services that the item page and the bulk actions share."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from governance.funnel.types import Decision
from governance.models import ReviewItem
from governance.review.audit import review_overturn_write
from governance.review.services import review_approve, review_reject


class Verdict(models.TextChoices):
    """What a reviewer can say. Parked items are approved or rejected; a sampled audit is
    confirmed or overturned, and overturning an automatic REJECT may write the memory."""

    APPROVE = "approve", _("approve")
    REJECT = "reject", _("reject")
    CONFIRM = "confirm", _("Confirm the automatic decision")
    OVERTURN_WRITE = "overturn_write", _("Overturn and write")
    OVERTURN_KEEP = "overturn_keep", _("Overturn, keep refused")
    OVERTURN_ARCHIVE = "overturn_archive", _("Overturn and archive the memory")


# Verdicts that record "no": a person has to say why.
NOTE_REQUIRED = {Verdict.REJECT, Verdict.OVERTURN_KEEP, Verdict.OVERTURN_ARCHIVE}


class DecisionForm(forms.Form):
    VERDICTS = (("", _("not judged")), ("yes", _("yes, the automatic decision was right")), ("no", _("no, it was wrong")))

    decision = forms.ChoiceField(choices=Verdict.choices)
    note = forms.CharField(label=_("note"), required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}))
    decision_correct = forms.ChoiceField(label=_("automatic decision was right"), choices=VERDICTS, required=False)

    def clean(self):
        data = super().clean()
        if data.get("decision") in NOTE_REQUIRED and not (data.get("note") or "").strip():
            raise ValidationError(gettext("A rejection needs a note saying why."), code="note_required")
        return data

    def verdict(self) -> bool | None:
        decision = self.cleaned_data.get("decision")
        if decision == Verdict.CONFIRM:
            return True
        if decision in {Verdict.OVERTURN_WRITE, Verdict.OVERTURN_KEEP, Verdict.OVERTURN_ARCHIVE}:
            return False
        return {"yes": True, "no": False}.get(self.cleaned_data.get("decision_correct") or "")


def review_decide(*, item: ReviewItem, user, decision: str, note: str, decision_correct: bool | None) -> Decision:
    """The one place the admin calls the review services."""
    kwargs = dict(item=item, reviewer=user, reviewer_name=user.get_username(), note=note.strip())
    if decision == Verdict.OVERTURN_WRITE:
        return review_overturn_write(**kwargs)
    if decision in {Verdict.APPROVE, Verdict.CONFIRM}:
        return review_approve(**kwargs, decision_correct=decision_correct)
    return review_reject(**kwargs, decision_correct=decision_correct)


def proposed_by_self(item: ReviewItem, user) -> bool:
    """Four eyes, as the review services enforce it: by account or by recorded name."""
    if item.proposed_by_user_id is not None and item.proposed_by_user_id == user.pk:
        return True
    return bool(item.proposed_by) and item.proposed_by == user.get_username()
