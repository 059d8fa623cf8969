"""Erasure: a memory's words, and every copy made of them, removed for good.

A client who asks for its data to go (PIPL, GDPR), or an operator who finds a secret that
slipped through, erases a memory (all its versions) or a whole advertiser. In one
transaction:

- the memory rows go, with what hangs off them: the FTS entries (delete trigger, then an
  FTS merge), the vectors (a column of the row; on SQLite the delete trigger logs the id,
  migration 0010, and each process drops it from its vector index on its next search, the
  first able to write the shared vector file zeroing its slot there, with no full reload),
  abstracts, the claim, entity links and relations (and entities no other memory names),
  suggestions built on them;
- the rows that copied its words are emptied, not deleted, so the audit trail keeps its
  shape: the events it came from (raw text, summary, data, source turns, reasons), their
  traces, review items (payload, reason, note), audit details, Django's admin log entries
  (a memory's str() there is its first words), distillation results, and django-q's
  pickled task results (a scheduled reflection's quotes the memories it found; a payload
  that no longer unpickles cannot be checked, so the erase reports those tasks by id);
- category summaries are recomputed without it;
- any other stored text that still quotes it (a reflection report, a metric snapshot, an
  event that carried the same words) is swept by its opening and closing words;
- a Tombstone per version keeps the id, layer, advertiser, who, when, why and a hash of
  the words, and the hashes of its source texts, so sending the same text again is refused
  (tombstone_refuse, called by intake and by the trusted import before the funnel).

After the commit, on SQLite the file is rebuilt and the WAL truncated
(memories.storage.storage_compact), so the bytes are gone from the files, not only from
the rows. docs/erasure.md says what PostgreSQL does and does not guarantee."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django_q.models import Task
from picklefield.fields import PickledObject  # type: ignore[import-untyped]

from governance.audit import audit_record
from governance.constants import AuditEvent
from governance.knowledge.organise.tree import category_refresh
from governance.models import AuditLog, DistillRun, MemoryEvent, MetricSnapshot, ReflectionReport, ReviewItem, Suggestion, Trace
from governance.write.memory import governed_write_lock
from memories import storage
from memories.exceptions import DomainError, InvalidInput
from memories.hashing import content_hash
from memories.models import Category, Entity, Memory, MemoryEntity, Relation, Tombstone, TombstoneHash
from memories.selectors import memory_get
from textrules.safety import redact

MARKER = "[erased: tombstone #{id}]"
MAX_REASON = 500
# Stored texts are swept for these many characters from each end of every erased text:
# long enough to be that text and no other, short enough to catch a quote of it.
NEEDLE = 24
# Words shorter than this (a data value like "3.5") are too common to sweep for.
MIN_SWEPT = 8

logger = logging.getLogger(__name__)


class ErasedContent(DomainError):
    """The text was erased before; it is not stored again."""

    http_status = 409


class EraseForbidden(DomainError):
    http_status = 403


@dataclass
class EraseResult:
    tombstones: list[Tombstone] = field(default_factory=list)
    storage: dict[str, Any] = field(default_factory=dict)
    # django-q tasks whose pickled payload could not be read, so not checked for the words.
    unreadable_tasks: list[str] = field(default_factory=list)
    # Asked by a caller scoped to some advertisers. The unreadable task rows are the whole
    # system's, not those advertisers': such a caller hears how many there are, an operator which.
    scoped: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "erased": len(self.tombstones),
            "tombstones": [tombstone_dict(t) for t in self.tombstones],
            "storage": self.storage,
            "unreadable_task_payloads": len(self.unreadable_tasks),
            "unreadable_task_ids": [] if self.scoped else self.unreadable_tasks,
        }


def tombstone_dict(tombstone: Tombstone) -> dict[str, Any]:
    return {
        "id": tombstone.pk,
        "memory_id": tombstone.memory_id,
        "erased_with": tombstone.erased_with,
        "layer": tombstone.layer,
        "advertiser": tombstone.advertiser,
        "version": tombstone.version,
        "erased_by": tombstone.erased_by,
        "erased_at": tombstone.erased_at.isoformat(),
        "reason": tombstone.reason,
        "content_hash": tombstone.content_hash,
    }


# --- the refusal at the door ----------------------------------------------------------
def tombstone_refuse(*, texts: Iterable[str], advertiser: str | None) -> None:
    """ErasedContent, naming the tombstone, when any of `texts` is erased text of the same
    scope (another advertiser's erasure says nothing to this one)."""
    digests = {content_hash(t) for t in texts if t and t.strip()}
    if not digests:
        return
    hits = TombstoneHash.objects.filter(digest__in=digests)
    hits = hits.filter(advertiser=advertiser) if advertiser else hits.filter(advertiser__isnull=True)
    hit = hits.select_related("tombstone").order_by("tombstone_id").first()
    if hit is not None:
        stone = hit.tombstone
        raise ErasedContent(
            f"this text was erased (tombstone #{stone.pk}, memory #{stone.memory_id}, by {stone.erased_by} "
            f"on {stone.erased_at:%Y-%m-%d}: {stone.reason}); it is not stored again"
        )


# --- erasing ----------------------------------------------------------------------------
def _reason(reason: Any) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a reason is required to erase (who asked, or what slipped through)")
    if len(reason) > MAX_REASON:
        raise InvalidInput(f"the reason is longer than {MAX_REASON} characters")
    return redact(reason.strip())


def memory_erase(*, memory_id: int, reason: str, actor: str, advertisers: tuple[str, ...] | None = None) -> EraseResult:
    """Erase the memory `memory_id` and every version of it. `advertisers` is the caller's
    scope (None: an operator): another advertiser's memory is NotFound, a global one is
    EraseForbidden unless the caller may touch every advertiser."""
    reason = _reason(reason)
    memory = memory_get(memory_id=memory_id, advertisers=advertisers)
    if advertisers is not None and memory.advertiser is None:
        raise EraseForbidden("a global memory is erased by an operator or an all-advertiser token")
    with transaction.atomic():
        storage.storage_secure_delete()
        governed_write_lock(advertiser=memory.advertiser)
        chain = _chain(memory.pk, advertiser=memory.advertiser)
        tombstones, unreadable = _erase([(memory.pk, chain)], reason=reason, actor=actor)
        audit_record(
            event_type=AuditEvent.MEMORY_ERASE,
            actor=actor,
            extra={
                "memory_id": memory.pk,
                "versions": sorted(chain),
                "tombstones": [t.pk for t in tombstones],
                "reason": reason,
                **_unreadable_extra(unreadable),
            },
        )
    return EraseResult(
        tombstones=tombstones, storage=storage.storage_compact(), unreadable_tasks=unreadable, scoped=advertisers is not None
    )


def advertiser_erase(*, advertiser: str, reason: str, actor: str) -> EraseResult:
    """Erase everything of one advertiser: every memory (tombstoned), and the texts of its
    events, review items, distillation runs, suggestions and category tree."""
    reason = _reason(reason)
    if not isinstance(advertiser, str) or not advertiser.strip():
        raise InvalidInput("name the advertiser to erase")
    with transaction.atomic():
        storage.storage_secure_delete()
        governed_write_lock(advertiser=advertiser)
        seen: set[int] = set()
        chains = []
        for pk in Memory.objects.filter(advertiser=advertiser).order_by("-pk").values_list("pk", flat=True):
            if pk not in seen:
                chain = _chain(pk, advertiser=advertiser)
                seen |= chain
                chains.append((max(chain), chain))
        tombstones, unreadable = _erase(chains, reason=reason, actor=actor)
        marker = MARKER.format(id=tombstones[0].pk) if tombstones else "[erased]"
        events = set(MemoryEvent.objects.filter(advertiser=advertiser).values_list("pk", flat=True))
        _hash_sources(tombstones[0] if tombstones else None, events)
        _blank(MemoryEvent, MemoryEvent.objects.filter(pk__in=events), marker)
        _blank(Trace, Trace.objects.filter(event_id__in=events), marker)
        items = ReviewItem.objects.filter(Q(advertiser=advertiser) | Q(event_id__in=events))
        _blank(AuditLog, _audits_of(memories=[], events=events, items=items.values_list("pk", flat=True)), marker)
        _admin_log_blank(memories=[], events=events, items=items.values_list("pk", flat=True), marker=marker)
        _blank(ReviewItem, items, marker)
        DistillRun.objects.filter(scope=advertiser).delete()
        Suggestion.objects.filter(advertiser=advertiser).delete()
        Category.objects.filter(advertiser=advertiser, parent__isnull=True).delete()
        audit_record(
            event_type=AuditEvent.MEMORY_ERASE,
            actor=actor,
            extra={
                "advertiser": advertiser,
                "memories": len(tombstones),
                "events": len(events),
                "reason": reason,
                **_unreadable_extra(unreadable),
            },
        )
    return EraseResult(tombstones=tombstones, storage=storage.storage_compact(), unreadable_tasks=unreadable)


def _unreadable_extra(task_ids: list[str]) -> dict[str, Any]:
    """For the audit row, and a warning in the log: which task payloads the sweep could not
    read (ids only; the payload may hold the very words being erased)."""
    if not task_ids:
        return {}
    logger.warning(
        "erase: %d django-q task payload(s) could not be unpickled and were not checked for the erased words: tasks %s",
        len(task_ids),
        ", ".join(task_ids),
    )
    return {"unreadable_task_payloads": len(task_ids), "unreadable_task_ids": task_ids}


def _chain(memory_id: int, *, advertiser: str | None) -> set[int]:
    """Every version linked to `memory_id` through `supersedes`, both ways, of the same
    scope: a chain an old import made across advertisers never lets one erase another's."""
    ids = {memory_id}
    frontier = {memory_id}
    while frontier:
        rows = Memory.objects.filter(Q(pk__in=frontier) | Q(supersedes_id__in=frontier)).values_list("pk", "supersedes_id")
        found = {pk for pk, _ in rows} | {sup for _, sup in rows if sup}
        found = set(Memory.objects.filter(pk__in=found - ids, advertiser=advertiser).values_list("pk", flat=True))
        frontier = found - ids
        ids |= found
    return ids


def _erase(chains: list[tuple[int, set[int]]], *, reason: str, actor: str) -> tuple[list[Tombstone], list[str]]:
    """The tombstones, and the django-q tasks whose payload the sweep could not read."""
    ids = sorted(set().union(*(chain for _, chain in chains))) if chains else []
    if not ids:
        return [], []
    memories = {m.pk: m for m in Memory.objects.filter(pk__in=ids)}
    tombstones: list[Tombstone] = []
    first_of: dict[int, Tombstone] = {}
    for head, chain in chains:
        for pk in sorted(chain):
            m = memories[pk]
            stone = Tombstone.objects.create(
                memory_id=pk,
                erased_with=head,
                layer=m.layer,
                advertiser=m.advertiser,
                version=m.version,
                erased_by=actor[:150] or "operator",
                reason=reason,
                content_hash=m.content_hash,
            )
            TombstoneHash.objects.get_or_create(tombstone=stone, digest=m.content_hash, defaults={"advertiser": m.advertiser})
            tombstones.append(stone)
            first_of.setdefault(head, stone)
    marker = MARKER.format(id=tombstones[0].pk)

    # The events it came from, and everything that refers to them or to the memory.
    events = set(MemoryEvent.objects.filter(memory_id__in=ids).values_list("pk", flat=True))
    events |= set(ReviewItem.objects.filter(memory_id__in=ids, event__isnull=False).values_list("event_id", flat=True))
    events |= set(Trace.objects.filter(memory_id__in=ids, event__isnull=False).values_list("event_id", flat=True))
    for head, chain in chains:
        _hash_sources(first_of[head], set(MemoryEvent.objects.filter(pk__in=events, memory_id__in=chain).values_list("pk", flat=True)))
    words = _words(memories.values(), events)

    _blank(MemoryEvent, MemoryEvent.objects.filter(pk__in=events), marker)
    items = ReviewItem.objects.filter(Q(event_id__in=events) | Q(memory_id__in=ids) | Q(related_memory_id__in=ids))
    item_ids = list(items.values_list("pk", flat=True))
    _blank(Trace, Trace.objects.filter(Q(event_id__in=events) | Q(memory_id__in=ids)), marker)
    _blank(ReviewItem, items, marker)
    _blank(AuditLog, _audits_of(memories=ids, events=events, items=item_ids), marker)
    _admin_log_blank(memories=ids, events=events, items=item_ids, marker=marker)
    _distill_runs(ids, events, marker)
    _suggestions(ids)

    nodes = {m.category_node_id for m in memories.values() if m.category_node_id}
    entities = set(MemoryEntity.objects.filter(memory_id__in=ids).values_list("entity_id", flat=True))
    for subject, obj in Relation.objects.filter(memory_id__in=ids).values_list("subject_id", "object_id"):
        entities |= {subject, obj}
    storage.memories_delete(memory_ids=ids)
    Entity.objects.filter(pk__in=entities, memory_links__isnull=True, relations_out__isnull=True, relations_in__isnull=True).delete()
    category_refresh(nodes)
    return tombstones, _sweep(words, marker)


def _audits_of(*, memories: Iterable[int], events: Iterable[int], items: Iterable[int]) -> models.QuerySet:
    """Audit rows about the memory, its events or its review items (a reviewer's note
    quotes the words it judged)."""
    targets = Q()
    for label, pks in (("memories.memory", memories), ("governance.memoryevent", events), ("governance.reviewitem", items)):
        targets |= Q(target_type=label, target_id__in=[str(pk) for pk in pks])
    return AuditLog.objects.filter(targets)


def _admin_log_blank(*, memories: Iterable[int], events: Iterable[int], items: Iterable[int], marker: str) -> int:
    """Django's admin log ("Recent actions") keeps str() of every row a person changed, and
    a memory's str() is its first words: those entries keep their who and when only."""
    targets = Q(pk__in=[])
    for model, pks in ((Memory, memories), (MemoryEvent, events), (ReviewItem, items)):
        content_type = ContentType.objects.get_for_model(model)
        targets |= Q(content_type=content_type, object_id__in=[str(pk) for pk in pks])
    return LogEntry.objects.filter(targets).update(object_repr=marker, change_message="")


def _hash_sources(stone: Tombstone | None, events: set[int]) -> None:
    """The source texts' hashes too: the same conversation sent again is refused, not
    only the memory's own sentence."""
    if stone is None:
        return
    for raw, summary, turns, advertiser in MemoryEvent.objects.filter(pk__in=events).values_list(
        "raw_text", "summary", "source_turns", "advertiser"
    ):
        texts = [raw, summary, "\n".join(t.get("content", "") for t in turns or [] if isinstance(t, dict))]
        for text in texts:
            if text and text.strip() and not text.startswith("[erased"):
                TombstoneHash.objects.get_or_create(tombstone=stone, digest=content_hash(text), defaults={"advertiser": advertiser})


def _words(memories: Iterable[Memory], events: set[int]) -> list[str]:
    """Every erased text worth sweeping for: versions' content, abstracts, data values,
    and the source events' texts and turns."""
    words: set[str] = set()
    for m in memories:
        words |= {m.content, m.abstract_line, m.abstract_paragraph, *_strings(m.data), *_strings(getattr(m, "claim", None))}
    for raw, summary, data, turns in MemoryEvent.objects.filter(pk__in=events).values_list("raw_text", "summary", "data", "source_turns"):
        words |= {raw, summary, *_strings(data), *(t.get("content", "") for t in turns or [] if isinstance(t, dict))}
        words |= set((raw or "").splitlines())
    return sorted(w for w in words if isinstance(w, str) and len(w.strip()) >= MIN_SWEPT and not w.startswith("[erased"))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _emptied(model: type[models.Model]) -> dict[str, Any]:
    """What a row that copied erased words keeps: every free-text and JSON field emptied
    (codes, ids, statuses and times stay, so the trail still reads as one)."""
    out: dict[str, Any] = {}
    for f in model._meta.concrete_fields:
        if isinstance(f, models.JSONField):
            out[f.name] = f.get_default()
        elif isinstance(f, models.TextField):
            out[f.name] = ""
    return out


def _blank(model: type[models.Model], queryset: models.QuerySet, marker: str) -> int:
    values = _emptied(model)
    for name in ("raw_text", "reason"):
        if name in values:
            values[name] = marker
    if "reasons" in values and isinstance(values["reasons"], list):
        values["reasons"] = [marker]
    if model is AuditLog:
        values["extra_data"] = {"erased": marker}
    return queryset.update(**values)


def _distill_runs(ids: list[int], events: set[int], marker: str) -> None:
    wanted = set(ids)
    for run in DistillRun.objects.all().only("pk", "result"):
        decisions = (run.result or {}).get("decisions") or []
        if not any(d.get("memory_id") in wanted or d.get("event_id") in events for d in decisions if isinstance(d, dict)):
            continue
        kept = [
            {"event_id": d.get("event_id"), "action": d.get("action"), "memory_id": None, "turns": d.get("turns"), "erased": marker}
            if isinstance(d, dict) and (d.get("memory_id") in wanted or d.get("event_id") in events)
            else d
            for d in decisions
        ]
        DistillRun.objects.filter(pk=run.pk).update(result={**run.result, "decisions": kept})


def _suggestions(ids: list[int]) -> None:
    Suggestion.objects.filter(signal_id__in=ids).delete()
    keys = {str(i) for i in ids}
    for suggestion in Suggestion.objects.filter(Q(strategies__in=ids) | Q(templates__in=ids)).distinct():
        suggestion.strategies.remove(*ids)
        suggestion.templates.remove(*ids)
        reasons = {k: v for k, v in (suggestion.reasons or {}).items() if str(k) not in keys}
        Suggestion.objects.filter(pk=suggestion.pk).update(reasons=reasons)


def _needles(words: list[str]) -> list[str]:
    out: set[str] = set()
    for word in words:
        word = word.strip()
        out.add(word[:NEEDLE])
        if len(word) > NEEDLE:
            out.add(word[-NEEDLE:])
    return sorted(out)


# Where any stored text may still quote an erased one after the linked rows are emptied.
_SWEPT: tuple[type[models.Model], ...] = (
    MemoryEvent,
    Trace,
    ReviewItem,
    AuditLog,
    DistillRun,
    ReflectionReport,
    MetricSnapshot,
    Suggestion,
)


# Needles per query: SQLite refuses an expression of more than 1,000 terms, and an
# advertiser's erase can bring hundreds of needles in two written forms each.
SWEEP_BATCH = 100


def _batches(forms: set[str]) -> list[list[str]]:
    ordered = sorted(forms)
    return [ordered[i : i + SWEEP_BATCH] for i in range(0, len(ordered), SWEEP_BATCH)]


def _any_contains(lookups: tuple[str, ...], forms: list[str]) -> Q:
    match = Q(pk__in=[])
    for n in forms:
        for lookup in lookups:
            match |= Q(**{f"{lookup}__contains": n})
    return match


def _sweep(words: list[str], marker: str) -> list[str]:
    """Scrub every stored quote of `words`; returns the tasks whose payload could not be read."""
    needles = _needles(words)
    if not needles:
        return []
    # JSON (the admin log's change message, JSONFields on SQLite) is stored escaped.
    escaped = {n for needle in needles for n in (needle, json.dumps(needle)[1:-1])}
    for batch in _batches(escaped):
        LogEntry.objects.filter(_any_contains(("object_repr", "change_message"), batch)).update(object_repr=marker, change_message="")
    for model in _SWEPT:
        for f in model._meta.concrete_fields:
            if not isinstance(f, (models.TextField, models.JSONField)):
                continue
            if isinstance(f, models.JSONField):
                qs, lookups, forms = model.objects.annotate(_as_text=Cast(f.name, output_field=TextField())), ("_as_text",), escaped
            else:
                qs, lookups, forms = model.objects.all(), (f.name,), set(needles)
            for batch in _batches(forms):
                for row in qs.filter(_any_contains(lookups, batch)).only("pk", f.name):
                    value = getattr(row, f.name)
                    model.objects.filter(pk=row.pk).update(**{f.name: _scrubbed(value, needles, marker)})
    return _task_results(needles, marker)


_TASK_PAYLOADS = ("result", "args", "kwargs")


def _task_results(needles: list[str], marker: str) -> list[str]:
    """django-q keeps what each task returned, and its arguments, pickled (so no text
    search sees them): a scheduled reflection's result quotes the stale and contradicting
    memories it found.

    Loaded through the model, a payload that does not unpickle (a class renamed since, a
    damaged row) comes back as its stored base64 text, which no needle matches: it would
    pass as checked. The stored text is read as text instead and unpickled here, so such
    a task is returned by id (its readable payloads are still scrubbed)."""
    raw = {f"_raw_{name}": Cast(name, output_field=TextField()) for name in _TASK_PAYLOADS}
    unreadable: list[str] = []
    for task_id, *stored in Task.objects.annotate(**raw).values_list("id", *raw).iterator():
        changed = {}
        for name, text in zip(_TASK_PAYLOADS, stored, strict=True):
            if text is None:
                continue
            try:
                # Marked as a pickle, the field raises instead of handing the text back.
                value = Task._meta.get_field(name).to_python(PickledObject(text))
            except Exception:  # unpickling fails in many ways: a missing class, cut-off bytes, bad base64
                if task_id not in unreadable:
                    unreadable.append(task_id)
                continue
            scrubbed = _scrubbed(value, needles, marker)
            if scrubbed != value:
                changed[name] = scrubbed
        if changed:
            Task.objects.filter(pk=task_id).update(**changed)
    return unreadable


def _scrubbed(value: Any, needles: list[str], marker: str) -> Any:
    if isinstance(value, str):
        return marker if any(n in value for n in needles) else value
    if isinstance(value, dict):
        return {k: _scrubbed(v, needles, marker) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_scrubbed(v, needles, marker) for v in value)
    return value
