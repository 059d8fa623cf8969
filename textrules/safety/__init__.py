"""Credentials and personal data kept out of everything this service stores.

    scan_text(text) -> Scan(text, credentials, personal)   # the text safe to store, kinds found
    scan_data(value) -> (clean value, Findings)            # JSON values, keys included
    redact(text) -> str                                    # just the safe text
    refuse_credentials(value, where=) -> value             # trusted writes: masked, or CredentialRefused
    scan_turns(texts) -> (clean texts, Findings)           # a conversation, its joined view included
    scan_conversation(texts) -> [Scan, …]                  # the same, with what each turn held
    refuse_secret_code(value, field_name=) -> value        # codes and keys: unchanged, or SecretInCode

A credential is cut out (`[REDACTED:kind]`); personal data is masked down to its last
four characters. Findings name kinds, never values."""

from textrules.safety.scan import (
    REDACTED,
    CredentialRefused,
    Findings,
    Scan,
    SecretInCode,
    redact,
    refuse_credentials,
    refuse_secret_code,
    scan_conversation,
    scan_data,
    scan_text,
    scan_turns,
)

__all__ = [
    "REDACTED",
    "CredentialRefused",
    "Findings",
    "Scan",
    "SecretInCode",
    "redact",
    "refuse_credentials",
    "refuse_secret_code",
    "scan_conversation",
    "scan_data",
    "scan_text",
    "scan_turns",
]
