"""What the store knows about names: which entity a name is (the vocabulary's aliases, and
the entities linked to the memories an advertiser can read). The relation asks it when two
statements differ only in what they call their subject (textrules.claims.identity)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from django.db.models import Q

from memories.constants import Status
from memories.entity_vocabulary import LEXICON, canonical
from memories.models import Entity
from textrules.claims import Identity, IdentityVerdict, subject_names


def _vocabulary_entity(name: str) -> str | None:
    for kind, names in LEXICON.items():
        spelled = canonical(kind, name)
        if spelled in names:
            return f"{kind}:{spelled}"
    return None


def entity_names_known(*, names: Iterable[str], advertiser: str | None) -> dict[str, str]:
    """name → "kind:canonical name" for each name the store knows: an alias in the ad-ops
    vocabulary (抖音 and 巨量引擎 are one channel), or an entity linked to a memory of
    `advertiser` or a global one. Two names on one key are one thing; two names on two keys
    are two things. A name it does not know is left out: nobody has said what it is."""
    wanted = {n.strip().lower() for n in names if n and n.strip()}
    known = {n: key for n in wanted if (key := _vocabulary_entity(n))}
    rest = wanted - set(known)
    if not rest:
        return known
    scope = Q(memory_links__memory__advertiser__isnull=True)
    if advertiser:
        scope |= Q(memory_links__memory__advertiser=advertiser)
    # Only what the store holds now: an entity named only by archived or replaced memories is
    # not knowledge the write may lean on. One filter() call, so both conditions are one link.
    scope &= Q(memory_links__memory__status=Status.ACTIVE)
    spelled = Q()
    for name in rest:
        spelled |= Q(name__iexact=name)
    for kind, name in Entity.objects.filter(spelled).filter(scope).values_list("kind", "name").distinct():
        known.setdefault(name.lower(), f"{kind}:{name}")
    return known


def subject_identity(*, old_text: str, new_text: str, advertiser: str | None, known: Mapping[str, str] | None = None) -> Identity:
    """The names two statements give their subject, with what the store knows of them, for
    textrules.claims.relate_claims. The store is asked only when both name something and no
    name is shared (the rare pair that raises the question). The funnel, reflection, the
    review desk and the demo all read a pair's names here, so they relate it alike.

    `known`: what the store knows of the names, when the caller read it once for many pairs
    (names_known_in); then the store is not asked again."""
    identity = Identity.between(old_text, new_text)
    if identity.verdict() == IdentityVerdict.NONE:
        return identity
    if known is None:
        known = entity_names_known(names=identity.old | identity.new, advertiser=advertiser)
    return replace(identity, known=known)


# Names asked of the store in one query; each is one term of an OR, and SQLite caps an
# expression's depth at 1000.
_NAMES_PER_QUERY = 200


def names_known_in(*, texts: Iterable[str], advertiser: str | None) -> dict[str, str]:
    """entity_names_known for every name the texts give their subjects, read once for a
    caller that relates many pairs among them: reflection compares every pair of a scope,
    and asked pair by pair, a scope of 300 named memories took 64 s instead of 5 s."""
    names = sorted({name for text in texts for name in subject_names(text)})
    known: dict[str, str] = {}
    for start in range(0, len(names), _NAMES_PER_QUERY):
        known.update(entity_names_known(names=names[start : start + _NAMES_PER_QUERY], advertiser=advertiser))
    return known
