"""Credentials and personal data kept out of everything this service stores.

    scan_text(text) -> Scan(text, credentials, personal)   # the text safe to store, kinds found
    scan_data(value) -> (clean value, Findings)            # JSON values, keys included
    redact(text) -> str                                    # just the safe text
    refuse_credentials(value, where=) -> value             # trusted writes: masked, or CredentialRefused

A credential is cut out (`[REDACTED:kind]`); personal data is masked down to its last
four characters. Findings name kinds, never values."""

from textrules.safety.scan import (
    REDACTED,
    CredentialRefused,
    Findings,
    Scan,
    redact,
    refuse_credentials,
    scan_data,
    scan_text,
)

__all__ = ["REDACTED", "CredentialRefused", "Findings", "Scan", "redact", "refuse_credentials", "scan_data", "scan_text"]
