"""What a statement claims: its subject, the lever it is about, the value it gives that
lever, the speaker's stance and the conditions it holds under.

Two memories are compared on these parts, never on how many words they share: a
Wednesday bid rule and a Friday bid rule share almost every word and are about different
things; "日预算5000元" and "日预算改为8000元" share most words and contradict.

Everything here is plain text rules (no database, no model), so the funnel, reflection,
the desk and the backfill all read a claim the same way. A model may propose a richer
claim (judges/), but it is validated against this shape."""

from textrules.claims.extract import extract_claim
from textrules.claims.identity import Identity, IdentityVerdict, subject_names
from textrules.claims.parts import UNSETTLED, Claim, ClaimRelation, Facet, Lever, Quantity, RelationKind, Stance, Subject
from textrules.claims.relate import claim_parts, relate_claims, within_bound
from textrules.claims.wording import Wording, extends_wording, swapped_category, swapped_name, wording_overlap

__all__ = [
    "UNSETTLED",
    "Claim",
    "ClaimRelation",
    "Facet",
    "Identity",
    "IdentityVerdict",
    "Lever",
    "Quantity",
    "RelationKind",
    "Stance",
    "Subject",
    "Wording",
    "claim_parts",
    "extends_wording",
    "extract_claim",
    "relate_claims",
    "subject_names",
    "swapped_category",
    "swapped_name",
    "within_bound",
    "wording_overlap",
]
