"""Credentials and personal data kept out of everything this service stores.

    scan_text(text) -> Scan(text, credentials, personal)   # the text safe to store, kinds found
    scan_data(value) -> (clean value, Findings)            # JSON values, keys included
    redact(text) -> str                                    # just the safe text

A credential is cut out (`[REDACTED:kind]`); personal data is masked down to its last
four characters. Findings name kinds, never values."""
from governance.safety.scan import REDACTED, Findings, Scan, redact, scan_data, scan_text

__all__ = ["REDACTED", "Findings", "Scan", "redact", "scan_data", "scan_text"]
