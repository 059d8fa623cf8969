"""What a memory is. Writes go through memories.storage, reads through memories.selectors."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from memories.constants import (
    Attribution,
    EntityKind,
    Grounding,
    Layer,
    LinkOrigin,
    MemoryKind,
    RelationPredicate,
    Source,
    Status,
    Tier,
)


class Memory(models.Model):
    layer = models.CharField(_("layer"), max_length=2, choices=Layer.choices, db_index=True)
    content = models.TextField(_("content"))
    data = models.JSONField(_("structured data"), default=dict, blank=True)
    # What the content claims (subject, lever, value, stance, conditions: textrules.claims), per version.
    claim = models.JSONField(_("claim"), default=dict, blank=True)

    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True, help_text=_("Empty means global."))
    business_line = models.CharField(_("business line"), max_length=64, blank=True, default="")
    category = models.CharField(_("category"), max_length=64, blank=True, default="")

    # Organisation, decided at write time by governance.knowledge.organise (and backfilled by
    # `memory maintain --task organise` for older rows).
    kind = models.CharField(_("kind"), max_length=10, choices=MemoryKind.choices, blank=True, default="", db_index=True)
    category_node = models.ForeignKey(
        "memories.Category",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="memories",
        verbose_name=_("category (tree)"),
    )
    abstract_line = models.CharField(_("one-line abstract"), max_length=240, blank=True, default="")
    abstract_paragraph = models.TextField(_("paragraph abstract"), blank=True, default="")

    source = models.CharField(_("source"), max_length=16, choices=Source.choices, default=Source.AGENT)
    source_attribution = models.CharField(_("source attribution"), max_length=32, choices=Attribution.choices, default=Attribution.UNKNOWN)
    grounding = models.CharField(_("grounding"), max_length=20, choices=Grounding.choices, default=Grounding.UNKNOWN)
    importance = models.FloatField(_("importance"), default=5.0)
    confidence = models.FloatField(_("confidence"), default=0.5)
    tier = models.CharField(_("tier"), max_length=12, choices=Tier.choices, default=Tier.WORKING)

    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True)

    # Version chain: an UPDATE creates version n+1 and closes version n.
    version = models.PositiveIntegerField(_("version"), default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by", verbose_name=_("supersedes")
    )
    valid_from = models.DateTimeField(_("valid from"), default=timezone.now)
    valid_to = models.DateTimeField(_("valid to"), null=True, blank=True)
    derived_from = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="derivatives", verbose_name=_("derived from"))

    observed_at = models.DateTimeField(_("observed at"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    access_count = models.PositiveIntegerField(_("access count"), default=0)
    last_accessed_at = models.DateTimeField(_("last accessed at"), null=True, blank=True)
    reinforcement_count = models.PositiveIntegerField(_("reinforcements"), default=0)

    content_hash = models.CharField(_("content hash"), max_length=64, db_index=True)
    embedding = models.BinaryField(_("embedding"), null=True, blank=True, editable=False)
    embedding_model = models.CharField(_("embedding model"), max_length=128, blank=True, default="")
    embedding_dim = models.PositiveIntegerField(_("embedding dimension"), default=0)
    # Set by database triggers: the search-state generation at which this row last changed.
    search_rev = models.BigIntegerField(default=0, editable=False)

    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("memory")
        verbose_name_plural = _("memories")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "advertiser", "layer"], name="mem_scope_idx"),
            models.Index(fields=["business_line", "status"], name="mem_bl_idx"),
            models.Index(fields=["expires_at"], name="mem_expiry_idx"),
            models.Index(fields=["search_rev"], name="mem_search_rev_idx"),
            # A category node's own memories in summary order: its counts and top points are read
            # from this index on every governed write (governance.knowledge.organise.tree).
            models.Index(fields=["category_node", "status", "kind", "importance", "created_at"], name="mem_category_rank_idx"),
            # Rows still waiting for the current embedder's vector (memories.embeddings.store.stale_embedding_q).
            models.Index(fields=["embedding_model", "embedding_dim"], name="mem_embedding_model_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(layer__in=[c.value for c in Layer]), name="mem_layer_valid"),
            models.CheckConstraint(condition=Q(status__in=[c.value for c in Status]), name="mem_status_valid"),
            models.CheckConstraint(condition=Q(importance__gte=0) & Q(importance__lte=10), name="mem_importance_0_10"),
            models.CheckConstraint(condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="mem_confidence_0_1"),
            models.CheckConstraint(condition=Q(version__gte=1), name="mem_version_positive"),
            models.CheckConstraint(condition=~Q(content=""), name="mem_content_not_empty"),
        ]
        permissions = [("edit_l1_memory", "Can edit L1 core rules")]

    def __str__(self) -> str:
        scope = self.advertiser or "global"
        return f"[{self.layer}·{scope}] {self.content[:60]}"


PATH_SEPARATOR = " › "


class Category(models.Model):
    """One node of a category tree (医药OTC › 冷启动 › 出价). Each advertiser has its own
    tree; advertiser NULL is the global tree. Counts and the summary cover the node and
    everything under it and are kept by governance.knowledge.organise on every governed write."""

    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True, help_text=_("Empty means the global tree."))
    name = models.CharField(_("name"), max_length=64)
    path = models.CharField(_("path"), max_length=255, db_index=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children", verbose_name=_("parent"))
    depth = models.PositiveSmallIntegerField(_("depth"), default=0)
    memory_count = models.PositiveIntegerField(_("active memories"), default=0)
    episodic_count = models.PositiveIntegerField(_("episodic"), default=0)
    semantic_count = models.PositiveIntegerField(_("semantic"), default=0)
    summary = models.TextField(_("summary"), blank=True, default="")
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("category")
        verbose_name_plural = _("categories")
        ordering = ["advertiser", "path"]
        constraints = [
            models.UniqueConstraint(fields=["advertiser", "path"], condition=Q(advertiser__isnull=False), name="cat_scoped_path_unique"),
            models.UniqueConstraint(fields=["path"], condition=Q(advertiser__isnull=True), name="cat_global_path_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.advertiser or gettext('global')}: {self.path}"


class SearchState(models.Model):
    """One row. Triggers bump `generation` on every search-relevant change and `epoch` on
    deletes, so each process can tell whether its in-memory vector matrix is stale."""

    generation = models.BigIntegerField(default=0)
    epoch = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("search state")

    def __str__(self) -> str:
        return f"generation {self.generation}, epoch {self.epoch}"


class Entity(models.Model):
    """A named thing memories talk about: an advertiser, category, channel, plan, metric,
    time slot or event. Names are canonical (memories.entity_vocabulary)."""

    kind = models.CharField(_("kind"), max_length=16, choices=EntityKind.choices, db_index=True)
    name = models.CharField(_("name"), max_length=128)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("entity")
        verbose_name_plural = _("entities")
        ordering = ["kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "name"], name="entity_kind_name_unique"),
            models.CheckConstraint(condition=Q(kind__in=[c.value for c in EntityKind]), name="entity_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.name}"


class MemoryEntity(models.Model):
    """One memory names one entity; the entity arm of search reads these links."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="entity_links", verbose_name=_("memory"))
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="memory_links", verbose_name=_("entity"))
    origin = models.CharField(_("origin"), max_length=8, choices=LinkOrigin.choices, default=LinkOrigin.OFFLINE)

    class Meta:
        verbose_name = _("entity link")
        verbose_name_plural = _("entity links")
        constraints = [models.UniqueConstraint(fields=["memory", "entity"], name="memory_entity_unique")]
        indexes = [models.Index(fields=["entity", "memory"], name="memory_entity_by_entity_idx")]

    def __str__(self) -> str:
        return f"#{self.memory_id} → {self.entity_id}"


class Relation(models.Model):
    """(subject, predicate, object) as one memory states it."""

    subject = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_out", verbose_name=_("subject"))
    predicate = models.CharField(_("predicate"), max_length=16, choices=RelationPredicate.choices)
    object = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_in", verbose_name=_("object"))
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="relations", verbose_name=_("memory"))
    origin = models.CharField(_("origin"), max_length=8, choices=LinkOrigin.choices, default=LinkOrigin.OFFLINE)

    class Meta:
        verbose_name = _("relation")
        verbose_name_plural = _("relations")
        constraints = [
            models.UniqueConstraint(fields=["subject", "predicate", "object", "memory"], name="relation_unique"),
            models.CheckConstraint(condition=Q(predicate__in=[c.value for c in RelationPredicate]), name="relation_predicate_valid"),
        ]

    def __str__(self) -> str:
        return f"({self.subject.name}, {self.predicate}, {self.object.name}) #{self.memory_id}"


class Tombstone(models.Model):
    """What is left of an erased memory (one row per version): which memory it was, whose,
    who erased it, when and why, and a hash of its words, so the same text is refused if
    someone sends it again (governance.write.erase). The words themselves are gone."""

    memory_id = models.BigIntegerField(_("erased memory id"), db_index=True)
    erased_with = models.BigIntegerField(
        _("erase request"), help_text=_("The memory id the erase was asked for; every version of it shares this.")
    )
    layer = models.CharField(_("layer"), max_length=2, choices=Layer.choices)
    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True, db_index=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    erased_by = models.CharField(_("erased by"), max_length=150)
    reason = models.TextField(_("reason"))
    content_hash = models.CharField(_("content hash"), max_length=64, help_text=_("sha256 of the normalised words (memories.hashing)."))
    erased_at = models.DateTimeField(_("erased at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("tombstone")
        verbose_name_plural = _("tombstones")
        ordering = ["-erased_at", "-id"]

    def __str__(self) -> str:
        return f"tombstone #{self.pk}: {self.layer} memory #{self.memory_id} ({self.advertiser or 'global'})"


class TombstoneHash(models.Model):
    """One hash of erased words: a version's content, or the raw text of an event it came
    from. A text whose hash is here is not stored again in the same scope."""

    tombstone = models.ForeignKey(Tombstone, on_delete=models.CASCADE, related_name="hashes")
    advertiser = models.CharField(_("advertiser"), max_length=64, null=True, blank=True)
    digest = models.CharField(_("hash"), max_length=64, db_index=True)

    class Meta:
        verbose_name = _("erased text hash")
        verbose_name_plural = _("erased text hashes")
        constraints = [models.UniqueConstraint(fields=["tombstone", "digest"], name="tombstone_hash_unique")]

    def __str__(self) -> str:
        return f"{self.digest[:12]}… → tombstone #{self.tombstone_id}"
