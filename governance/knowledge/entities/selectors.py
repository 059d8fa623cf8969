"""What the store knows about names: which entity a name is (the vocabulary's aliases, and
the entities linked to the memories an advertiser can read). The relation asks it when two
statements differ only in what they call their subject (textrules.claims.identity)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Q

from memories.entity_vocabulary import LEXICON, canonical
from memories.models import Entity
from textrules.claims import Identity, IdentityVerdict


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
    spelled = Q()
    for name in rest:
        spelled |= Q(name__iexact=name)
    for kind, name in Entity.objects.filter(spelled).filter(scope).values_list("kind", "name").distinct():
        known.setdefault(name.lower(), f"{kind}:{name}")
    return known


def subject_identity(*, old_text: str, new_text: str, advertiser: str | None) -> Identity:
    """The names two statements give their subject, with what the store knows of them, for
    textrules.claims.relate_claims. The store is asked only when both name something and no
    name is shared (the rare pair that raises the question). The funnel, reflection, the
    review desk and the demo all read a pair's names here, so they relate it alike."""
    identity = Identity.between(old_text, new_text)
    if identity.verdict() == IdentityVerdict.NONE:
        return identity
    return replace(identity, known=entity_names_known(names=identity.old | identity.new, advertiser=advertiser))
