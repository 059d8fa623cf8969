"""The review and audit desk. Events, traces and the audit log are read-only; review
decisions and policy edits go through governance services, which trace and audit them."""
from __future__ import annotations

import difflib
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Case, IntegerField, Value, When
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.timesince import timesince
from django.utils.translation import gettext, gettext_lazy as _, ngettext

from governance.constants import ReviewStatus
from governance.models import AuditLog, LayerPolicy, MemoryEvent, MetricSnapshot, ReflectionReport, ReviewItem, Trace
from governance.selectors import review_writes_l1
from memories.admin import AdvertiserFilter
from memories.constants import L1_PERMISSION, Layer
from memories.exceptions import DomainError


def _admin_link(obj, label: str | None = None) -> str:
    if obj is None:
        return "—"
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label or str(obj))


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only records: visible to whoever may view them, changeable by nobody."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.site_header = _("Lingix Memory · review desk")
admin.site.site_title = _("Lingix Memory")
admin.site.index_title = _("Dashboard")


# --- events and traces ----------------------------------------------------------------
class TraceInline(admin.TabularInline):
    model = Trace
    fk_name = "event"
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ("seq", "stage", "decision", "provider", "model", "prompt_version", "latency_ms")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "event_type", "source", "advertiser", "action", "decided_layer", "memory_link", "provider", "created_at")
    list_filter = ("action", "kind", "event_type", "source", "decided_layer", "provider")
    search_fields = ("raw_text", "summary", "advertiser", "actor")
    date_hierarchy = "created_at"
    list_select_related = ("memory",)
    fieldsets = (
        (None, {"fields": ("kind", "event_type", "source", "actor", "advertiser", "business_line", "requested_layer")}),
        (_("Raw input"), {"fields": ("raw_text", "summary", "data", "idempotency_key")}),
        (_("Decision"), {"fields": ("status", "action", "decided_layer", "reasons", "memory_link", "provider", "created_at", "decided_at")}),
        (_("Stage timeline"), {"fields": ("timeline",)}),
    )
    readonly_fields = (
        "kind", "event_type", "source", "actor", "advertiser", "business_line", "requested_layer", "raw_text", "summary",
        "data", "idempotency_key", "status", "action", "decided_layer", "reasons", "memory_link", "provider", "created_at",
        "decided_at", "timeline",
    )

    @admin.display(description=_("memory"))
    def memory_link(self, obj):
        return _admin_link(obj.memory, f"#{obj.memory_id} {Truncator(obj.memory.content).chars(40)}" if obj.memory else None)

    @admin.display(description=_("stages"))
    def timeline(self, obj):
        traces = list(obj.traces.order_by("seq", "id"))
        total = sum(t.latency_ms for t in traces) or 1.0
        for trace in traces:
            trace.share = round(trace.latency_ms / total * 100, 1)
        review_items = list(obj.review_items.all())
        return render_to_string(
            "admin/governance/memoryevent/timeline.html", {"event": obj, "traces": traces, "total_ms": round(sum(t.latency_ms for t in traces), 2), "review_items": review_items}
        )


@admin.register(Trace)
class TraceAdmin(ReadOnlyAdmin):
    list_display = ("id", "event_link", "seq", "stage", "decision", "provider", "model", "prompt_version", "latency_ms", "created_at")
    list_filter = ("stage", "decision", "provider")
    search_fields = ("stage", "decision", "model")
    date_hierarchy = "created_at"
    list_select_related = ("event",)

    @admin.display(description=_("event"))
    def event_link(self, obj):
        return _admin_link(obj.event, f"#{obj.event_id}" if obj.event_id else None)


# --- the review queue -------------------------------------------------------------------
def review_candidate_text(item: ReviewItem) -> str:
    """What the reviewer is asked to accept, in the order the funnel records it."""
    payload = item.payload or {}
    for key in ("content", "candidate_content"):
        if isinstance(payload.get(key), str) and payload[key].strip():
            return payload[key]
    candidate = payload.get("candidate")
    if isinstance(candidate, dict) and isinstance(candidate.get("content"), str):
        return candidate["content"]
    if item.memory is not None:
        return item.memory.content
    if item.event is not None:
        return item.event.summary or item.event.raw_text
    return item.reason


def diff_html(existing: str, candidate: str) -> tuple[str, str, float]:
    """Character-level diff (Chinese has no spaces to split words on): the existing text
    with removed spans struck out, the candidate with added spans marked, and the ratio."""
    from django.utils.html import escape

    matcher = difflib.SequenceMatcher(None, existing, candidate, autojunk=False)
    left, right = [], []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        old, new = escape(existing[a0:a1]), escape(candidate[b0:b1])
        if op == "equal":
            left.append(old)
            right.append(new)
        else:
            if old:
                left.append(f'<del class="lingix-del">{old}</del>')
            if new:
                right.append(f'<ins class="lingix-ins">{new}</ins>')
    return mark_safe("".join(left)), mark_safe("".join(right)), round(matcher.ratio(), 3)


def review_similar_memories(item: ReviewItem, candidate: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """The memories a reviewer should compare with: the one the funnel flagged, then the
    nearest active ones in the same scope (that advertiser plus global)."""
    from memories.selectors import memory_search

    exclude = {item.memory_id} if item.memory_id else set()
    picked: list[tuple[Any, float | None]] = []
    if item.related_memory is not None:
        picked.append((item.related_memory, None))
        exclude.add(item.related_memory_id)
    if candidate.strip():
        advertisers = (item.advertiser,) if item.advertiser else ()
        response = memory_search(query=candidate, advertisers=advertisers, top_k=limit + len(exclude), record_access=False)
        for result in response.results:
            if result.memory.pk not in exclude and len(picked) < limit:
                picked.append((result.memory, result.score))
                exclude.add(result.memory.pk)
    out = []
    for memory, score in picked:
        left, right, ratio = diff_html(memory.content, candidate)
        out.append({"memory": memory, "score": score, "existing_html": left, "candidate_html": right, "similarity": ratio, "flagged": score is None})
    return out


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
    from governance.services import review_approve, review_reject

    kwargs = dict(item=item, reviewer=user, reviewer_name=user.get_username(), note=note.strip(), decision_correct=decision_correct)
    if decision == "approve":
        return review_approve(**kwargs)
    return review_reject(**kwargs)


def _proposed_by_self(item: ReviewItem, user) -> bool:
    """Four eyes, as the review services enforce it: by account or by recorded name."""
    if item.proposed_by_user_id is not None and item.proposed_by_user_id == user.pk:
        return True
    return bool(item.proposed_by) and item.proposed_by == user.get_username()


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "layer", "advertiser", "candidate", "waiting", "proposed_by", "reviewer_name")
    list_display_links = ("id", "candidate")
    list_filter = ("status", "kind", "layer", AdvertiserFilter)
    search_fields = ("reason", "proposed_by", "memory__content", "event__raw_text", "event__summary")
    list_select_related = ("memory", "event")
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
        (None, {"fields": ("kind", "status", "layer", "advertiser", "reason", "proposed_by", "created_at", "event_link", "memory_link", "related_link")}),
        (_("Decision"), {"fields": ("reviewer_name", "note", "decision_correct", "decided_at")}),
        (_("Payload"), {"fields": ("payload",), "classes": ("collapse",)}),
    )
    readonly_fields = (
        "kind", "status", "layer", "advertiser", "reason", "proposed_by", "created_at", "event_link", "memory_link",
        "related_link", "reviewer_name", "note", "decision_correct", "decided_at", "payload",
    )

    @admin.display(description=_("source event"))
    def event_link(self, obj):
        return _admin_link(obj.event, f"#{obj.event_id} {obj.event.get_kind_display()} · {obj.event.action}" if obj.event else None)

    @admin.display(description=_("memory under review"))
    def memory_link(self, obj):
        return _admin_link(obj.memory, f"#{obj.memory_id} {Truncator(obj.memory.content).chars(60)}" if obj.memory else None)

    @admin.display(description=_("conflicts with"))
    def related_link(self, obj):
        memory = obj.related_memory
        return _admin_link(memory, f"#{memory.pk} {Truncator(memory.content).chars(60)}" if memory else None)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("candidate"))
    def candidate(self, obj):
        return Truncator(review_candidate_text(obj)).chars(80)

    @admin.display(description=_("waiting"), ordering="created_at")
    def waiting(self, obj):
        if obj.status != ReviewStatus.OPEN:
            return "—"
        return timesince(obj.created_at, timezone.now())

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path("<path:object_id>/decide/", self.admin_site.admin_view(self.decide_view), name="%s_%s_decide" % info),
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
                decision_form=DecisionForm(initial={"decision": "approve"}),
                can_decide=item.status == ReviewStatus.OPEN and self.has_change_permission(request, item),
                # The service refuses it anyway; hiding the button spares a reviewer the round trip.
                can_approve=not review_writes_l1(item) or request.user.has_perm(L1_PERMISSION),
                proposed_by_self=_proposed_by_self(item, request.user),
                show_save=False,
                show_save_and_continue=False,
                show_save_and_add_another=False,
                show_delete=False,
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def decide_view(self, request, object_id):
        item = get_object_or_404(ReviewItem, pk=object_id)
        change_url = reverse("admin:governance_reviewitem_change", args=[item.pk])
        if request.method != "POST":
            return HttpResponseRedirect(change_url)
        if not self.has_change_permission(request, item):
            raise PermissionDenied
        form = DecisionForm(request.POST)
        if not form.is_valid():
            for error in form.non_field_errors() + [e for errs in form.errors.values() for e in errs if e not in form.non_field_errors()]:
                self.message_user(request, error, messages.ERROR)
            return HttpResponseRedirect(change_url)
        decision = form.cleaned_data["decision"]
        if _proposed_by_self(item, request.user):
            self.message_user(request, gettext("You proposed this item; someone else has to decide it."), messages.ERROR)
            return HttpResponseRedirect(change_url)
        try:
            review_decide(item=item, user=request.user, decision=decision, note=form.cleaned_data["note"], decision_correct=form.verdict())
        except (DomainError, PermissionDenied, ValueError) as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return HttpResponseRedirect(change_url)
        done = gettext("Approved review item #%(id)s.") if decision == "approve" else gettext("Rejected review item #%(id)s.")
        self.message_user(request, done % {"id": item.pk}, messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:governance_reviewitem_changelist"))

    def _bulk(self, request, queryset, decision: str):
        if "apply" in request.POST:
            form = DecisionForm({**request.POST.dict(), "decision": decision})
            if form.is_valid():
                done, refused = 0, []
                for item in queryset.filter(status=ReviewStatus.OPEN):
                    if _proposed_by_self(item, request.user):
                        refused.append(gettext("#%(id)s: you proposed it; someone else has to decide it.") % {"id": item.pk})
                        continue
                    try:
                        review_decide(item=item, user=request.user, decision=decision, note=form.cleaned_data["note"], decision_correct=form.verdict())
                        done += 1
                    except (DomainError, PermissionDenied, ValueError) as exc:
                        refused.append(f"#{item.pk}: {exc}")
                if done:
                    message = ngettext("Approved %d item.", "Approved %d items.", done) if decision == "approve" else ngettext("Rejected %d item.", "Rejected %d items.", done)
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


# --- layer policies ---------------------------------------------------------------------
# Shown beside the tunable fields so an operator sees what the form cannot change. The
# rules themselves are enforced by the funnel's layer-policy stage, not by this text.
HARD_RULES = {
    Layer.L1: [
        _("Only authoritative sources write here (a human operator, a rule update); anything else is parked for review."),
        _("Never overwritten automatically: a contradiction always goes to a person."),
        _("Agent inference may not write L1."),
    ],
    Layer.L2: [
        _("Needs a source and conditions of validity."),
        _("Agent inference may not write L2."),
        _("Assistant suggestions without a user confirmation are rejected."),
    ],
    Layer.L3: [
        _("Needs a tool or system source and an observation time."),
        _("Always expires: a TTL is set at write time."),
    ],
    Layer.L4: [
        _("Never written from outside: only controlled promotion of mature, validated L2 memories."),
    ],
}


class LayerPolicyForm(forms.ModelForm):
    class Meta:
        model = LayerPolicy
        fields = (
            "default_ttl_hours", "capacity_per_advertiser", "promotion_min_age_days", "promotion_min_recalls",
            "promotion_min_importance", "auto_promote", "sampled_audit_rate", "review_importance_below", "review_confidence_below",
        )

    def clean(self):
        data = super().clean()
        rate = data.get("sampled_audit_rate")
        if rate is not None and not 0 <= rate <= 1:
            self.add_error("sampled_audit_rate", gettext("A rate between 0 and 1."))
        if self.instance.layer == Layer.L3 and data.get("default_ttl_hours") in (None, 0):
            self.add_error("default_ttl_hours", gettext("L3 memories always expire; give a TTL of at least one hour."))
        return data


@admin.register(LayerPolicy)
class LayerPolicyAdmin(admin.ModelAdmin):
    form = LayerPolicyForm
    list_display = ("layer", "default_ttl_hours", "capacity_per_advertiser", "sampled_audit_rate", "review_importance_below", "review_confidence_below", "auto_promote", "updated_by", "updated_at")
    readonly_fields = ("layer", "hard_rules", "updated_by", "updated_at", "recent_edits")
    fieldsets = (
        (None, {"fields": ("layer",)}),
        (_("Hard rules (in code, cannot be switched off)"), {"fields": ("hard_rules",)}),
        (_("Tunable"), {"fields": (
            "default_ttl_hours", "capacity_per_advertiser", "sampled_audit_rate", "review_importance_below",
            "review_confidence_below", "promotion_min_age_days", "promotion_min_recalls", "promotion_min_importance", "auto_promote",
        )}),
        (_("Changes"), {"fields": ("updated_by", "updated_at", "recent_edits")}),
    )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("hard rules"))
    def hard_rules(self, obj):
        return render_to_string("admin/governance/layerpolicy/hard_rules.html", {"rules": HARD_RULES.get(obj.layer, [])})

    @admin.display(description=_("recent edits"))
    def recent_edits(self, obj):
        entries = AuditLog.objects.filter(target_type=obj._meta.label_lower, target_id=str(obj.pk)).order_by("-created_at")[:10]
        return render_to_string("admin/governance/layerpolicy/recent_edits.html", {"entries": entries})

    def save_model(self, request, obj, form, change):
        from memories.admin_services import layer_policy_update

        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        layer_policy_update(policy=LayerPolicy.objects.get(pk=obj.pk), user=request.user, changes=changes)


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "event_type", "actor", "target_type", "target_link", "extra_excerpt")
    list_filter = ("event_type", "target_type")
    search_fields = ("event_type", "actor", "target_id")
    date_hierarchy = "created_at"

    @admin.display(description=_("target"))
    def target_link(self, obj):
        if not obj.target_type or not obj.target_id:
            return "—"
        app_label, _dot, model_name = obj.target_type.partition(".")
        try:
            url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.target_id])
        except Exception:  # noqa: BLE001 - a target type with no admin page is shown as text
            return f"{obj.target_type} #{obj.target_id}"
        return format_html('<a href="{}">#{}</a>', url, obj.target_id)

    @admin.display(description=_("details"))
    def extra_excerpt(self, obj):
        import json

        return Truncator(json.dumps(obj.extra_data, ensure_ascii=False, default=str)).chars(120)


@admin.register(ReflectionReport)
class ReflectionReportAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "window_days", "summary")


@admin.register(MetricSnapshot)
class MetricSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("taken_at",)
