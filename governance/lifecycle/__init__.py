"""The governed lifecycle jobs: L3 expiry, L2→L4 promotion, retention tiers and eviction.

Each job is a service that takes `now` (so tests can move the clock), works in short
batches, and writes its traces (and, for promotion, its events and review items) in the
same transaction as the change. Retention scoring and the embedding backfill need no
governance and live in memories.lifecycle."""
