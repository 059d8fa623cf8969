from textrules.errors import DomainError, InvalidInput

__all__ = ["DomainError", "InvalidInput", "NotFound", "StaleMemory"]


class NotFound(DomainError):
    pass


class StaleMemory(DomainError):
    """The memory changed (superseded, archived, expired) between deciding and writing."""

    http_status = 409
