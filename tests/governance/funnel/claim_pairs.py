"""What the claim tests share: one pair related as the funnel relates it (the bundled
embedder's cosine, the claims, the wording), and a user's statement ingested under the
advertiser its text names, as the credential would scope it."""

import re

from governance.funnel.relation import Relation, relate
from memories.embeddings import get_embedder
from textrules.claims import Wording, extract_claim

_NAMED_ADVERTISER = re.compile(r"\b(?:brand|adv)_[A-Za-z0-9_]+", re.A)


def relation_between(old: str, new: str, advertiser: str | None = None) -> Relation | None:
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
