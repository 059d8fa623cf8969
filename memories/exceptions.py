class DomainError(Exception):
    """Base for domain errors the API maps to 4xx and the CLI to a one-line message."""


class InvalidInput(DomainError):
    pass


class NotFound(DomainError):
    pass


class StaleMemory(DomainError):
    """The memory changed (superseded, archived, expired) between deciding and writing."""

    http_status = 409
