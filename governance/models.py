"""How a memory gets in: the events, their stage traces, the review queue, layer policy
and the append-only audit log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from governance.constants import (
    Action,
    AuditEvent,
    EventKind,
    EventStatus,
    ReviewKind,
    ReviewStatus,
    SignalKind,
    SuggestionStatus,
    TriggerType,
)
from memories.constants import Layer, Source


class MemoryEvent(models.Model):
    """One proposal to change memory (an ingest, a trigger, an import, a promotion)."""

    kind = models.CharField(_("kind"), max_length=16, choices=EventKind.choices)
    event_type = models.CharField(_("trigger type"), max_length=32, choices=TriggerType.choices, blank=True, default="")
    source = models.CharField(_("source"), max_length=16, choices=Source.choices, default=Source.AGENT)
    actor = models.CharField(_("actor"), max_length=128, blank=True, default="", help_text=_("Token, user or job that sent it."))
    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True)
    business_line = models.CharField(_("business line"), max_length=64, blank=True, default="")
    requested_layer = models.CharField(_("requested layer"), max_length=2, choices=Layer.choices, blank=True, default="")
    raw_text = models.TextField(_("raw text"), blank=True, default="")
    summary = models.TextField(_("summary"), blank=True, default="")
    data = models.JSONField(_("data"), default=dict, blank=True)
    idempotency_key = models.CharField(_("idempotency key"), max_length=128, null=True, blank=True)

    status = models.CharField(_("status"), max_length=16, choices=EventStatus.choices, default=EventStatus.RECEIVED)
    action = models.CharField(_("action"), max_length=16, choices=Action.choices, blank=True, default="")
    decided_layer = models.CharField(_("decided layer"), max_length=2, choices=Layer.choices, blank=True, default="")
    reasons = models.JSONField(_("reasons"), default=list, blank=True)
    # The same reasons as codes with parameters (textrules.reasons), one per English
    # sentence above: the desk renders them in the reader's language.
    reason_codes = models.JSONField(_("reason codes"), default=list, blank=True)
    memory = models.ForeignKey(
        "memories.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="events", verbose_name=_("memory")
    )
    provider = models.CharField(_("provider"), max_length=32, blank=True, default="")
    # A proposal made from a conversation keeps the turns it came from, so a memory can be
    # checked against what was said (redacted like raw_text).
    session_id = models.CharField(_("session"), max_length=200, null=True, blank=True, db_index=True)
    source_turns = models.JSONField(
        _("source turns"), default=list, blank=True, help_text=_("[{index, role, content}] of the conversation turns it came from.")
    )

    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name = _("memory event")
        verbose_name_plural = _("memory events")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["actor", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_idempotency_unique",
            ),
        ]
        indexes = [models.Index(fields=["action", "created_at"], name="event_action_time_idx")]

    def __str__(self) -> str:
        # Shown as the admin page's title and breadcrumb: labels, which follow the reader's language.
        what = f"{self.get_kind_display()} · {self.get_event_type_display()}" if self.event_type else self.get_kind_display()
        return f"#{self.pk} {what} → {self.get_action_display() or self.get_status_display()}"


class Trace(models.Model):
    """One stage reached by an event, or one batch of a lifecycle job. Append-only."""

    event = models.ForeignKey(MemoryEvent, null=True, blank=True, on_delete=models.CASCADE, related_name="traces")
    memory = models.ForeignKey("memories.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="traces")
    seq = models.PositiveSmallIntegerField(_("order"), default=0)
    stage = models.CharField(_("stage"), max_length=32, db_index=True)
    decision = models.CharField(_("decision"), max_length=32, blank=True, default="")
    reasons = models.JSONField(_("reasons"), default=list, blank=True)
    reason_codes = models.JSONField(_("reason codes"), default=list, blank=True)
    scores = models.JSONField(_("scores"), default=dict, blank=True)
    provider = models.CharField(_("provider"), max_length=32, blank=True, default="")
    model = models.CharField(_("model"), max_length=128, blank=True, default="")
    prompt_version = models.CharField(_("prompt version"), max_length=32, blank=True, default="")
    latency_ms = models.FloatField(_("latency (ms)"), default=0.0)
    tokens_in = models.PositiveIntegerField(_("prompt tokens"), default=0)
    tokens_out = models.PositiveIntegerField(_("completion tokens"), default=0)
    cost_usd = models.FloatField(_("cost (USD)"), default=0.0)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("trace")
        verbose_name_plural = _("traces")
        ordering = ["event_id", "seq", "id"]

    def __str__(self) -> str:
        # The desk's page title: no stage or decision code (desk.admin.reasons names those).
        if self.event_id is None:  # a lifecycle job's trace belongs to no event
            return gettext("trace #%(id)s") % {"id": self.pk}
        return gettext("stage %(seq)s of event #%(event)s") % {"seq": self.seq, "event": self.event_id}


class ReviewItem(models.Model):
    kind = models.CharField(_("kind"), max_length=16, choices=ReviewKind.choices, db_index=True)
    status = models.CharField(_("status"), max_length=10, choices=ReviewStatus.choices, default=ReviewStatus.OPEN, db_index=True)
    event = models.ForeignKey(MemoryEvent, null=True, blank=True, on_delete=models.CASCADE, related_name="review_items")
    memory = models.ForeignKey(
        "memories.Memory",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="review_items",
        help_text=_("The memory under review (a parked candidate, a promotion source, an audited write)."),
    )
    related_memory = models.ForeignKey(
        "memories.Memory",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The existing memory it conflicts with, when there is one."),
    )
    layer = models.CharField(_("layer"), max_length=2, choices=Layer.choices, blank=True, default="")
    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True, default="")
    reason_codes = models.JSONField(_("reason codes"), default=list, blank=True)
    payload = models.JSONField(_("payload"), default=dict, blank=True)
    proposed_by = models.CharField(_("proposed by"), max_length=128, blank=True, default="")
    proposed_by_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reviewer_name = models.CharField(_("reviewer"), max_length=150, blank=True, default="")
    note = models.TextField(_("note"), blank=True, default="")
    decision_correct = models.BooleanField(
        _("automatic decision was right"),
        null=True,
        blank=True,
        help_text=_("The reviewer's verdict on the automatic decision; ground truth for guard metrics."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name = _("review item")
        verbose_name_plural = _("review items")
        ordering = ["status", "created_at", "id"]
        indexes = [models.Index(fields=["status", "kind", "created_at"], name="review_queue_idx")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} ({self.get_status_display()})"


class LayerPolicy(models.Model):
    """The soft, operator-tunable parameters of one layer. Hard rules live in code."""

    layer = models.CharField(_("layer"), max_length=2, choices=Layer.choices, unique=True)
    default_ttl_hours = models.PositiveIntegerField(_("default TTL (hours)"), null=True, blank=True)
    capacity_per_advertiser = models.PositiveIntegerField(_("capacity per advertiser"), null=True, blank=True)
    promotion_min_age_days = models.PositiveIntegerField(_("promotion: minimum age (days)"), default=14)
    promotion_min_recalls = models.PositiveIntegerField(_("promotion: minimum recalls or reinforcements"), default=3)
    promotion_min_importance = models.FloatField(_("promotion: minimum importance"), default=7.0)
    auto_promote = models.BooleanField(_("promote without review"), default=False)
    sampled_audit_rate = models.FloatField(_("sampled-audit rate"), default=0.05)
    review_importance_below = models.FloatField(
        _("review when importance below"),
        default=3.0,
        help_text=_("A write whose quality score falls under this goes to review instead."),
    )
    review_confidence_below = models.FloatField(_("review when judge confidence below"), default=0.5)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True, default="")

    # What an operator may change (the admin form, governance.write.admin_edits.layer_policy_update);
    # the rest is the row's identity and bookkeeping.
    TUNABLE_FIELDS = (
        "default_ttl_hours",
        "capacity_per_advertiser",
        "promotion_min_age_days",
        "promotion_min_recalls",
        "promotion_min_importance",
        "auto_promote",
        "sampled_audit_rate",
        "review_importance_below",
        "review_confidence_below",
    )

    class Meta:
        verbose_name = _("layer policy")
        verbose_name_plural = _("layer policies")
        ordering = ["layer"]
        constraints = [
            models.CheckConstraint(condition=Q(sampled_audit_rate__gte=0) & Q(sampled_audit_rate__lte=1), name="policy_audit_rate_0_1"),
        ]

    def __str__(self) -> str:
        return gettext("%(layer)s policy") % {"layer": self.layer}


class AuditLog(models.Model):
    """Append-only record of governed changes outside the funnel (imports, policy edits,
    admin actions, token management), in the shape of Zulip's RealmAuditLog."""

    event_type = models.CharField(_("event type"), max_length=64, choices=AuditEvent.choices, db_index=True)
    actor = models.CharField(_("actor"), max_length=150, blank=True, default="")
    target_type = models.CharField(_("target type"), max_length=64, blank=True, default="")
    target_id = models.CharField(_("target id"), max_length=64, blank=True, default="")
    extra_data = models.JSONField(_("extra data"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_event_type_display()} · {self.actor or gettext('system')}"


class ReflectionReport(models.Model):
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    window_days = models.PositiveIntegerField(_("window (days)"), default=30)
    findings = models.JSONField(_("findings"), default=dict, blank=True)
    summary = models.TextField(_("summary"), blank=True, default="")

    class Meta:
        verbose_name = _("reflection report")
        verbose_name_plural = _("reflection reports")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} ({self.window_days}d)"


class MetricSnapshot(models.Model):
    taken_at = models.DateTimeField(_("taken at"), default=timezone.now, db_index=True)
    metrics = models.JSONField(_("metrics"), default=dict)

    class Meta:
        verbose_name = _("metric snapshot")
        verbose_name_plural = _("metric snapshots")
        ordering = ["-taken_at"]

    def __str__(self) -> str:
        return f"{self.taken_at:%Y-%m-%d %H:%M}"


class Suggestion(models.Model):
    """An L3 signal and the L2 strategies and L4 templates that apply to it. It lives as
    long as its signal: the expiry job closes it when the signal expires or changes."""

    signal = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="suggestions", verbose_name=_("signal"))
    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True, db_index=True)
    kind = models.CharField(_("signal kind"), max_length=16, choices=SignalKind.choices, default=SignalKind.OTHER)
    topic = models.CharField(_("topic"), max_length=128, blank=True, default="")
    strategies = models.ManyToManyField(
        "memories.Memory", blank=True, related_name="suggested_as_strategy", verbose_name=_("L2 strategies")
    )
    templates = models.ManyToManyField("memories.Memory", blank=True, related_name="suggested_as_template", verbose_name=_("L4 templates"))
    reasons = models.JSONField(_("why each playbook applies"), default=dict, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=SuggestionStatus.choices, default=SuggestionStatus.OPEN, db_index=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("suggestion")
        verbose_name_plural = _("suggestions")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=[c.value for c in SuggestionStatus]), name="suggestion_status_valid"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.topic or self.get_kind_display()} → {gettext('signal')} #{self.signal_id}"


class DistillRun(models.Model):
    """One distillation of a session's turn range, stored so that a repeat (a retried
    session_end, a second run of the CLI) replays its decisions instead of writing again."""

    scope = models.CharField(_("scope"), max_length=64, blank=True, default="", help_text=_("The advertiser written to; empty for global."))
    session_id = models.CharField(_("session"), max_length=200)
    turn_start = models.PositiveIntegerField(_("first turn"))
    turn_end = models.PositiveIntegerField(_("last turn"))
    actor = models.CharField(_("actor"), max_length=128, blank=True, default="")
    extractor = models.CharField(_("extractor"), max_length=16, blank=True, default="")
    result = models.JSONField(_("result"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("session distillation")
        verbose_name_plural = _("session distillations")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["scope", "session_id", "turn_start", "turn_end"], name="distill_run_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id} [{self.turn_start}-{self.turn_end}] ({self.scope or 'global'})"
