"""The errors a text rule raises. The API maps them to 4xx and the CLI to a one-line
message (memories.exceptions re-exports them beside the storage errors)."""


class DomainError(Exception):
    """Base for domain errors the API maps to 4xx and the CLI to a one-line message."""


class InvalidInput(DomainError):
    pass
