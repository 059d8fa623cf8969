"""The review queue: open items first, oldest first; one item's page with the candidate,
its nearest memories and a decision form; bulk approve and reject."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Case, IntegerField, Value, When
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from desk.admin.common import admin_link
from desk.admin.filters import AdvertiserFilter
from desk.admin.list_cells import local_time_text, user_data
from desk.admin.readable import readable, review_reasons
from desk.admin.review_compare import review_candidate_text, review_changed_since, review_claims, review_similar_memories, review_turns
from desk.admin.review_consequence import review_consequences, review_has_automatic_decision
from desk.admin.review_decision import DecisionForm, Verdict, proposed_by_self, review_decide
from desk.admin.review_flow import change_url, changelist_url, decision_message, kept_filters, next_open_item, with_next_link
from desk.admin.review_list import ReviewListColumns
from desk.admin.review_verdicts import auto_action_label, review_verdicts
from governance.constants import ReviewKind, ReviewStatus
from governance.models import ReviewItem
from governance.review.audit import review_overturn_writes_l1
from governance.review.selectors import review_writes_l1
from memories.constants import L1_PERMISSION
from memories.exceptions import DomainError


def _verdict(form: DecisionForm, item: ReviewItem) -> bool | None:
    # Only a decision made without a person can be judged right or wrong; on a parked item
    # the selector is not shown, and a value posted anyway is not recorded.
    return form.verdict() if review_has_automatic_decision(item) else None


@admin.register(ReviewItem)
class ReviewItemAdmin(ReviewListColumns, admin.ModelAdmin):
    list_display = ("id", "kind_badge", "candidate", "reason_column", "target_column", "layer_code", "scope", "waiting", "people")
    list_display_links = ("id", "candidate")
    list_filter = ("status", "kind", "layer", AdvertiserFilter)
    search_fields = ("reason", "proposed_by", "memory__content", "event__raw_text", "event__summary")
    list_select_related = ("memory", "event", "related_memory")
    actions = ("approve_selected", "reject_selected")
    change_form_template = "admin/governance/reviewitem/change_form.html"

    def get_queryset(self, request):
        # Open first, then oldest first: the morning starts with what has waited longest.
        queryset = self.model._default_manager.get_queryset().annotate(
            open_first=Case(When(status=ReviewStatus.OPEN, then=Value(0)), default=Value(1), output_field=IntegerField())
        )
        return queryset.order_by(*self.get_ordering(request))

    def get_ordering(self, request):
        return ["open_first", "created_at", "id"]

    fieldsets = (
        (
            None,
            {
                "fields": (
                    "kind",
                    "status",
                    "layer",
                    "advertiser",
                    "reason_shown",
                    "proposed_by_shown",
                    "created_at",
                    "event_link",
                    "memory_link",
                    "related_link",
                )
            },
        ),
        (_("Decision"), {"fields": ("reviewer_shown", "note_shown", "decision_correct", "decided_at")}),
        (_("Payload"), {"fields": ("payload_shown",), "classes": ("collapse",)}),
    )
    readonly_fields = (
        "kind",
        "status",
        "layer",
        "advertiser",
        "reason_shown",
        "proposed_by_shown",
        "created_at",
        "event_link",
        "memory_link",
        "related_link",
        "reviewer_shown",
        "note_shown",
        "decision_correct",
        "decided_at",
        "payload_shown",
    )

    def get_fieldsets(self, request, obj=None):
        if obj is None or review_has_automatic_decision(obj):
            return self.fieldsets
        # A parked item has no automatic decision for "was it right?" to be about.
        return tuple(
            (title, {**options, "fields": tuple(f for f in options["fields"] if f != "decision_correct")})
            for title, options in self.fieldsets
        )

    @admin.display(description=_("source event"))
    def event_link(self, obj):
        return admin_link(
            obj.event, f"#{obj.event_id} {obj.event.get_kind_display()} · {obj.event.get_action_display()}" if obj.event else None
        )

    # Who proposed and decided, and the note, are shown as recorded.
    @admin.display(description=_("proposed by"))
    def proposed_by_shown(self, obj):
        return user_data(obj.proposed_by) if obj.proposed_by else "—"

    @admin.display(description=_("reviewer"))
    def reviewer_shown(self, obj):
        return user_data(obj.reviewer_name) if obj.reviewer_name else "—"

    @admin.display(description=_("note"))
    def note_shown(self, obj):
        return user_data(obj.note) if obj.note else "—"

    @admin.display(description=_("reason"))
    def reason_shown(self, obj):
        return review_reasons(obj)

    @admin.display(description=_("payload"))
    def payload_shown(self, obj):
        return readable(obj.payload)

    @admin.display(description=_("memory under review"))
    def memory_link(self, obj):
        if obj.memory is None:
            return "—"
        return admin_link(obj.memory, format_html("#{} {}", obj.memory_id, user_data(Truncator(obj.memory.content).chars(60))))

    @admin.display(description=_("conflicts with"))
    def related_link(self, obj):
        memory = obj.related_memory
        if memory is None:
            return "—"
        return admin_link(memory, format_html("#{} {}", memory.pk, user_data(Truncator(memory.content).chars(60))))

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path("<path:object_id>/decide/", self.admin_site.admin_view(self.decide_view), name="{}_{}_decide".format(*info)),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if request.method == "POST":
            # Decisions are posted to decide/; the change form itself changes nothing.
            return HttpResponseRedirect(request.path)
        item = self.get_object(request, object_id)
        extra_context = extra_context or {}
        if item is not None:
            candidate = review_candidate_text(item)
            extra_context.update(
                # Django would say "Change review item", but the item itself is never edited: it is decided.
                title=gettext("Decide a review item") if item.status == ReviewStatus.OPEN else gettext("Review item"),
                candidate=candidate,
                similar=review_similar_memories(item, candidate),
                claims=review_claims(item),
                consequences=review_consequences(item),
                conversation=review_turns(item),
                changed_since=review_changed_since(item),
                asks_auto_verdict=review_has_automatic_decision(item) and item.kind != ReviewKind.SAMPLED_AUDIT,
                decision_form=DecisionForm(initial={"decision": Verdict.APPROVE}),
                verdicts=review_verdicts(item),
                why=review_reasons(item),
                auto_action=auto_action_label(item),
                decided_at_shown=local_time_text(item.decided_at),
                changelist_filters=kept_filters(request),
                next_item=next_open_item(self, request, after=item, filters=kept_filters(request)),
                can_decide=item.status == ReviewStatus.OPEN and self.has_change_permission(request, item),
                # The service refuses it anyway; hiding the button spares a reviewer the round trip.
                can_approve=not review_writes_l1(item) or request.user.has_perm(L1_PERMISSION),
                can_write=not (review_writes_l1(item) or review_overturn_writes_l1(item)) or request.user.has_perm(L1_PERMISSION),
                proposed_by_self=proposed_by_self(item, request.user),
                show_save=False,
                show_save_and_continue=False,
                show_save_and_add_another=False,
                show_delete=False,
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def decide_view(self, request, object_id):
        item = get_object_or_404(ReviewItem, pk=object_id)
        filters = kept_filters(request)
        back = change_url(item.pk, filters)
        if request.method != "POST":
            return HttpResponseRedirect(back)
        if not self.has_change_permission(request, item):
            raise PermissionDenied
        form = DecisionForm(request.POST)
        if not form.is_valid():
            for error in form.non_field_errors() + [e for errs in form.errors.values() for e in errs if e not in form.non_field_errors()]:
                self.message_user(request, error, messages.ERROR)
            return HttpResponseRedirect(back)
        decision = form.cleaned_data["decision"]
        if proposed_by_self(item, request.user):
            self.message_user(request, gettext("You proposed this item; someone else has to decide it."), messages.ERROR)
            return HttpResponseRedirect(back)
        try:
            outcome = review_decide(
                item=item, user=request.user, decision=decision, note=form.cleaned_data["note"], decision_correct=_verdict(form, item)
            )
        except (DomainError, PermissionDenied, ValueError) as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(back)
        item.refresh_from_db()
        message = decision_message(item=item, verdict=decision, decision=outcome)
        following = next_open_item(self, request, after=item, filters=filters)
        self.message_user(request, with_next_link(message, following, filters), messages.SUCCESS)
        return HttpResponseRedirect(changelist_url(filters))

    def _bulk(self, request, queryset, decision: str):
        if "apply" in request.POST:
            form = DecisionForm({**request.POST.dict(), "decision": decision})
            if form.is_valid():
                done, refused = 0, []
                for item in queryset.filter(status=ReviewStatus.OPEN):
                    if proposed_by_self(item, request.user):
                        refused.append(gettext("#%(id)s: you proposed it; someone else has to decide it.") % {"id": item.pk})
                        continue
                    try:
                        review_decide(
                            item=item,
                            user=request.user,
                            decision=decision,
                            note=form.cleaned_data["note"],
                            decision_correct=_verdict(form, item),
                        )
                        done += 1
                    except (DomainError, PermissionDenied, ValueError) as exc:
                        refused.append(f"#{item.pk}: {exc}")
                if done:
                    message = (
                        ngettext("Approved %d item.", "Approved %d items.", done)
                        if decision == "approve"
                        else ngettext("Rejected %d item.", "Rejected %d items.", done)
                    )
                    self.message_user(request, message % done, messages.SUCCESS)
                for reason in refused[:10]:
                    self.message_user(request, reason, messages.WARNING)
                return None
        else:
            form = DecisionForm(initial={"decision": decision})
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Approve review items") if decision == "approve" else gettext("Reject review items"),
            "opts": self.opts,
            "items": list(queryset),
            "form": form,
            "decision": decision,
            "action": f"{decision}_selected",
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/governance/reviewitem/bulk_decide.html", context)

    @admin.action(description=_("Approve selected items"), permissions=["change"])
    def approve_selected(self, request, queryset):
        return self._bulk(request, queryset, "approve")

    @admin.action(description=_("Reject selected items (a note is required)"), permissions=["change"])
    def reject_selected(self, request, queryset):
        return self._bulk(request, queryset, "reject")
