"""Domain errors of the write funnel and the review queue. All are DomainError
subclasses, so the API answers 4xx and the CLI prints one line."""

from __future__ import annotations

from memories.exceptions import DomainError, InvalidInput


class UnknownEventType(InvalidInput):
    pass


class UnknownSource(InvalidInput):
    pass


class UnknownLayer(InvalidInput):
    pass


class InputTooLarge(InvalidInput):
    pass


class EmptyInput(InvalidInput):
    pass


class NoteRequired(InvalidInput):
    pass


class ReviewNotOpen(DomainError):
    pass


class SelfReviewForbidden(DomainError):
    """Four eyes: whoever proposed an item may not decide it."""


class L1ApprovalForbidden(DomainError):
    """Writing a core rule is an operator's call: approving an L1 candidate needs the
    memories.edit_l1_memory permission, so neither a reviewer nor an API token can."""

    http_status = 403


class RuleRefusedApproval(DomainError):
    """An approval the deterministic guard rules still refuse."""

    http_status = 403
