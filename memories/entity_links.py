"""Storage of a memory's entity links and relations. governance.entities decides what they
are and calls this from the governed write path; this module decides nothing."""
from __future__ import annotations

from collections.abc import Sequence

from memories.entity_vocabulary import Mention
from memories.models import Entity, Memory, MemoryEntity, Relation


def _entities(mentions: Sequence[Mention]) -> dict[Mention, Entity]:
    out: dict[Mention, Entity] = {}
    for mention in mentions:
        if mention not in out:
            out[mention], _ = Entity.objects.get_or_create(kind=mention.kind, name=mention.name)
    return out


def memory_entities_replace(
    *, memory: Memory, links: Sequence[tuple[Mention, str]], triples: Sequence[tuple[Mention, str, Mention, str]]
) -> int:
    """Make `links` ((mention, origin) pairs) and `triples` ((subject, predicate, object,
    origin)) the memory's entity links; the previous ones go. Returns the number of linked
    entities. Runs inside the caller's transaction."""
    entities = _entities([*(m for m, _ in links), *(m for s, _, o, _ in triples for m in (s, o))])
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
        [Relation(subject=entities[s], predicate=p, object=entities[o], memory=memory, origin=origin)
         for (s, p, o), origin in seen.items()],
        ignore_conflicts=True,
    )
    return len(first_origin)
