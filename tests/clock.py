"""A fixed clock: every lifecycle service takes `now`, so tests move time explicitly."""

from datetime import UTC, datetime

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
