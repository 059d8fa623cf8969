"""What the claim tests share: one pair related as the claim rules relate it (the bundled
embedder's cosine, the claims, the wording), a user's statement ingested under the
advertiser its text names, as the credential would scope it, and a memory already in the
store as a tool or an operator left it."""

import re

from governance.funnel.relation import Relation, relate
from memories.embeddings import get_embedder
from memories.storage import memory_create
from textrules.claims import Wording, extract_claim

_NAMED_ADVERTISER = re.compile(r"\b(?:brand|adv)_[A-Za-z0-9_]+", re.A)


def relation_between(old: str, new: str, advertiser: str | None = None) -> Relation | None:
    """What the claim rules alone make of the pair; the pair model's second opinion on top of
    them is tested apart (test_pair_model.py) and end to end through the funnel."""
    va, vb = get_embedder().embed_passages([old, new])
    return relate(
        extract_claim(new, advertiser=advertiser),
        extract_claim(old, advertiser=advertiser),
        cosine=float(va @ vb),
        same_text=False,
        wording=Wording(old, new),
        related_cosine=0.92,
    )


def advertiser_in(text: str, default: str = "brand_A") -> str:
    """The advertiser a case's text names, as its credential would scope it."""
    found = _NAMED_ADVERTISER.search(text)
    return found.group() if found else default


def user_says(ingest, text: str):
    return ingest(text, source="user", advertiser=advertiser_in(text))


# How each trusted source's memory is attributed and grounded when it is stored.
_TRUSTED = {"tool": "tool_observation", "human": "human_config"}


def remembered(content: str, *, advertiser: str, source: str, layer: str = "L2", claim: dict | None = None):
    """A grounded memory from a tool or an operator, stored directly (the case's 'existing')."""
    return memory_create(
        layer=layer,
        content=content,
        claim=claim,
        advertiser=advertiser,
        source=source,
        source_attribution=_TRUSTED[source],
        grounding="grounded",
    )
