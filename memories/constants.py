"""Vocabulary shared by every app: layers, statuses, sources, attribution, grounding."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Layer(models.TextChoices):
    L1 = "L1", _("L1 core rules")
    L2 = "L2", _("L2 strategy experience")
    L3 = "L3", _("L3 real-time environment")
    L4 = "L4", _("L4 skill template")


class Status(models.TextChoices):
    ACTIVE = "active", _("active")
    PENDING_REVIEW = "pending_review", _("pending review")
    SUPERSEDED = "superseded", _("superseded")
    EXPIRED = "expired", _("expired")
    ARCHIVED = "archived", _("archived")


class Source(models.TextChoices):
    """Who produced the text (`--source`, docs/cli.md)."""

    USER = "user", _("user")
    ASSISTANT = "assistant", _("assistant")
    AGENT = "agent", _("agent")
    TOOL = "tool", _("tool")
    HUMAN = "human", _("human operator")
    SYSTEM = "system", _("system")


class Attribution(models.TextChoices):
    """What the guard concluded about where a claim really comes from."""

    USER_CONFIRMED = "user_confirmed", _("user confirmed")
    USER_STATED = "user_stated", _("user stated")
    ASSISTANT_SUGGESTION = "assistant_suggestion", _("assistant suggestion")
    AGENT_INFERENCE = "agent_inference", _("agent inference")
    TOOL_OBSERVATION = "tool_observation", _("tool observation")
    HUMAN_CONFIG = "human_config", _("human config")
    RULE_UPDATE = "rule_update", _("rule update")
    PROMOTION = "promotion", _("controlled promotion")
    IMPORT = "import", _("trusted import")
    UNKNOWN = "unknown", _("unknown")


class Grounding(models.TextChoices):
    GROUNDED = "grounded", _("grounded")
    WEAKLY_GROUNDED = "weakly_grounded", _("weakly grounded")
    UNSUPPORTED = "unsupported", _("unsupported")
    UNKNOWN = "unknown", _("unknown")


class MemoryKind(models.TextChoices):
    """What a memory is about: something that happened (a campaign result, an observed
    signal) or something that holds (a rule, a preference, a pattern). Empty: written
    before kinds existed and not organised yet."""

    EPISODIC = "episodic", _("episodic (what happened)")
    SEMANTIC = "semantic", _("semantic (what holds)")


class Tier(models.TextChoices):
    """Retention tiers; the Weibull decay shape depends on the tier."""

    CORE = "core", _("core")
    WORKING = "working", _("working")
    PERIPHERAL = "peripheral", _("peripheral")


LAYER_CODES = [choice.value for choice in Layer]

# Operators hold it (the roles data migration of the app above gives it to that group);
# reviewers do not, so an L1 core rule is never changed or approved by a reviewer.
L1_PERMISSION = "memories.edit_l1_memory"


class EntityKind(models.TextChoices):
    """What a named thing in ad-ops text is (the entity links of a memory)."""

    ADVERTISER = "advertiser", _("advertiser")
    CATEGORY = "category", _("category")
    CHANNEL = "channel", _("channel")
    PLAN = "plan", _("plan")
    METRIC = "metric", _("metric")
    TIME_SLOT = "time_slot", _("time slot")
    EVENT = "event", _("event (promotion, cold start, anomaly)")


class RelationPredicate(models.TextChoices):
    """How two entities of one memory relate; the subject is the memory's head entity."""

    IN_CATEGORY = "in_category", _("in category")
    USES_CHANNEL = "uses_channel", _("uses channel")
    RUNS_PLAN = "runs_plan", _("runs plan")
    MEASURED_BY = "measured_by", _("measured by")
    DURING = "during", _("during")
    AFFECTED_BY = "affected_by", _("affected by")


class LinkOrigin(models.TextChoices):
    """Who extracted an entity link: the offline extractor or the configured LLM."""

    OFFLINE = "offline", _("offline patterns and event fields")
    LLM = "llm", _("LLM")
