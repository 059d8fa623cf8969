"""Storage of a memory's entity links and relations. governance.knowledge.entities decides what they
are and calls this from the governed write path; this module decides nothing."""

from __future__ import annotations

from collections.abc import Sequence

from memories.entity_vocabulary import Mention
from memories.models import Entity, Memory, MemoryEntity, Relation
from textrules.safety import scan_text


def _nameable(mention: Mention) -> bool:
    """A name that holds a credential or personal data is never made an entity (an LLM
    linker may quote one back from a text); the memory simply has no link to it."""
    return not scan_text(mention.name)


def memory_entities_replace(
    *, memory: Memory, links: Sequence[tuple[Mention, str]], triples: Sequence[tuple[Mention, str, Mention, str]]
) -> int:
    """Make `links` ((mention, origin) pairs) and `triples` ((subject, predicate, object,
    origin)) the memory's entity links; the previous ones go. Returns the number of linked
    entities. Runs inside the caller's transaction."""
    links = [(m, origin) for m, origin in links if _nameable(m)]
    triples = [t for t in triples if _nameable(t[0]) and _nameable(t[2])]
    entities = entities_for([*(m for m, _ in links), *(m for s, _, o, _ in triples for m in (s, o))])
    MemoryEntity.objects.filter(memory=memory).delete()
    Relation.objects.filter(memory=memory).delete()
    first_origin: dict[Mention, str] = {}
    for mention, origin in links:
        first_origin.setdefault(mention, origin)
    MemoryEntity.objects.bulk_create(
        [MemoryEntity(memory=memory, entity=entities[m], origin=origin) for m, origin in first_origin.items()], ignore_conflicts=True
    )
    seen: dict[tuple[Mention, str, Mention], str] = {}
    for s, p, o, origin in triples:
        seen.setdefault((s, p, o), origin)
    Relation.objects.bulk_create(
        [
            Relation(subject=entities[s], predicate=p, object=entities[o], memory=memory, origin=origin)
            for (s, p, o), origin in seen.items()
        ],
        ignore_conflicts=True,
    )
    return len(first_origin)


def entities_for(mentions: Sequence[Mention]) -> dict[Mention, Entity]:
    """Every mention's Entity row, created where missing, in a few queries for the lot."""
    wanted = set(mentions)
    by_kind: dict[str, set[str]] = {}
    for mention in wanted:
        by_kind.setdefault(mention.kind, set()).add(mention.name)

    def read() -> dict[Mention, Entity]:
        found: dict[Mention, Entity] = {}
        for kind, names in by_kind.items():
            for entity in Entity.objects.filter(kind=kind, name__in=list(names)):
                found[Mention(entity.kind, entity.name)] = entity
        return found

    found = read()
    missing = wanted - set(found)
    if missing:
        Entity.objects.bulk_create([Entity(kind=m.kind, name=m.name) for m in missing], ignore_conflicts=True)
        found = read()
    return found


def memories_entities_add(*, links: Sequence[tuple[int, Mention, str]], triples: Sequence[tuple[int, Mention, str, Mention, str]]) -> int:
    """Bulk form for memories that have no links yet (a trusted import, a backfill):
    (memory id, mention, origin) links and (memory id, subject, predicate, object, origin)
    triples. Returns the number of links written."""
    links = [link for link in links if _nameable(link[1])]
    triples = [t for t in triples if _nameable(t[1]) and _nameable(t[3])]
    entities = entities_for([*(m for _, m, _ in links), *(m for _, s, _, o, _ in triples for m in (s, o))])
    link_rows = {(mid, m): origin for mid, m, origin in links}
    MemoryEntity.objects.bulk_create(
        [MemoryEntity(memory_id=mid, entity=entities[m], origin=origin) for (mid, m), origin in link_rows.items()],
        ignore_conflicts=True,
        batch_size=500,
    )
    triple_rows = {(mid, s, p, o): origin for mid, s, p, o, origin in triples}
    Relation.objects.bulk_create(
        [
            Relation(memory_id=mid, subject=entities[s], predicate=p, object=entities[o], origin=origin)
            for (mid, s, p, o), origin in triple_rows.items()
        ],
        ignore_conflicts=True,
        batch_size=500,
    )
    return len(link_rows)
