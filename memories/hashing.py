from __future__ import annotations

import hashlib
import re
import unicodedata

_SPACE = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """Hash of the normalised text, so trivially re-spaced duplicates collide."""
    normal = _SPACE.sub(" ", unicodedata.normalize("NFKC", content)).strip().lower()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()
