from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Action(models.TextChoices):
    WRITE = "WRITE", _("write")
    UPDATE = "UPDATE", _("update")
    REJECT = "REJECT", _("reject")
    PENDING_REVIEW = "PENDING_REVIEW", _("pending review")


class TriggerType(models.TextChoices):
    USER_FEEDBACK = "user_feedback", _("user feedback")
    STRATEGY_EXECUTION = "strategy_execution", _("strategy execution")
    ENVIRONMENT_CHANGE = "environment_change", _("environment change")
    RULE_UPDATE = "rule_update", _("rule update")
    ANOMALY_PATTERN = "anomaly_pattern", _("anomaly pattern")
    PERFORMANCE_OPTIMIZATION = "performance_optimization", _("performance optimization")
    CROSS_DOMAIN_CORRELATION = "cross_domain_correlation", _("cross-domain correlation")
    PERIODIC_PATTERN = "periodic_pattern", _("periodic pattern")


class EventKind(models.TextChoices):
    INGEST = "ingest", _("ingest (free text)")
    TRIGGER = "trigger", _("trigger (structured)")
    IMPORT = "import", _("trusted import")
    PROMOTION = "promotion", _("promotion")
    ADMIN_EDIT = "admin_edit", _("admin edit")
    CONSOLIDATION = "consolidation", _("consolidation (episodes → semantic)")


class EventStatus(models.TextChoices):
    RECEIVED = "received", _("received")
    DECIDED = "decided", _("decided")
    PARKED = "parked", _("parked for review")
    RESOLVED = "resolved", _("resolved by a reviewer")


class ReviewKind(models.TextChoices):
    PENDING_WRITE = "pending_write", _("pending write")
    CONFLICT = "conflict", _("conflict")
    PROMOTION = "promotion", _("promotion")
    SAMPLED_AUDIT = "sampled_audit", _("sampled audit")
    REFLECTION = "reflection", _("reflection finding")
    CONSOLIDATION = "consolidation", _("semantic consolidation")


class ReviewStatus(models.TextChoices):
    OPEN = "open", _("open")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")


# Deciding a review item is a reviewer's or operator's right (both roles hold it).
REVIEW_PERMISSION = "governance.change_reviewitem"


class SignalKind(models.TextChoices):
    """What an L3 signal is about, as far as choosing a playbook goes."""

    PROMOTION = "promotion", _("sales promotion")
    COLD_START = "cold_start", _("cold start")
    ANOMALY = "anomaly", _("anomaly")
    OTHER = "other", _("other")


class SuggestionStatus(models.TextChoices):
    OPEN = "open", _("open")
    EXPIRED = "expired", _("expired with its signal")


class AuditEvent(models.TextChoices):
    """What an audit row records: one value per kind of governed change."""

    MEMORY_IMPORT = "memory.import", _("trusted import")
    MEMORY_ADMIN_EDIT = "memory.admin_edit", _("memory edited in the admin")
    MEMORY_ARCHIVE = "memory.archive", _("memory archived in the admin")
    MEMORY_RESTORE = "memory.restore", _("memory restored in the admin")
    MEMORY_REEMBED = "memory.reembed", _("memories re-embedded")
    MEMORY_L1_WRITE = "memory.l1_write", _("L1 core rule written")
    MEMORY_L1_STATUS = "memory.l1_status", _("L1 core rule status changed")
    MEMORY_ERASE = "memory.erase", _("memory erased (tombstone left)")
    REVIEW_APPROVED = "review.approved", _("review item approved")
    REVIEW_REJECTED = "review.rejected", _("review item rejected")
    REVIEW_OVERTURNED = "review.overturned", _("sampled audit overturned")
    LAYER_POLICY_UPDATE = "layer_policy.update", _("layer policy changed")
    API_TOKEN_CREATED = "api_token.created", _("API token created")
    API_TOKEN_REVOKED = "api_token.revoked", _("API token revoked")
    DATABASE_RESTORE = "database.restore", _("database restored from a backup")
