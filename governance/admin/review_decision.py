"""A reviewer's decision: the form, the four-eyes check, and the one call into the review
services that the item page and the bulk actions share."""
from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from governance.models import ReviewItem
from governance.services import review_approve, review_reject


class DecisionForm(forms.Form):
    VERDICTS = (("", _("not judged")), ("yes", _("yes, the automatic decision was right")), ("no", _("no, it was wrong")))

    decision = forms.ChoiceField(choices=(("approve", _("approve")), ("reject", _("reject"))))
    note = forms.CharField(label=_("note"), required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}))
    decision_correct = forms.ChoiceField(label=_("automatic decision was right"), choices=VERDICTS, required=False)

    def clean(self):
        data = super().clean()
        if data.get("decision") == "reject" and not (data.get("note") or "").strip():
            raise ValidationError(gettext("A rejection needs a note saying why."), code="note_required")
        return data

    def verdict(self) -> bool | None:
        return {"yes": True, "no": False}.get(self.cleaned_data.get("decision_correct") or "")


def review_decide(*, item: ReviewItem, user, decision: str, note: str, decision_correct: bool | None):
    """The one place the admin calls the review services."""
    kwargs = dict(item=item, reviewer=user, reviewer_name=user.get_username(), note=note.strip(), decision_correct=decision_correct)
    if decision == "approve":
        return review_approve(**kwargs)
    return review_reject(**kwargs)


def proposed_by_self(item: ReviewItem, user) -> bool:
    """Four eyes, as the review services enforce it: by account or by recorded name."""
    if item.proposed_by_user_id is not None and item.proposed_by_user_id == user.pk:
        return True
    return bool(item.proposed_by) and item.proposed_by == user.get_username()
