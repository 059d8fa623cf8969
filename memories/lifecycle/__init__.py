"""Scheduled lifecycle jobs: expiry, promotion, retention decay and eviction, backfill.

Each job is a service that takes `now` (so tests can move the clock), works in short
batches, and traces what it changed."""
