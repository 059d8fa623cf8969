"""The review and audit desk, one module per page (Django's autodiscovery imports this
package, which registers them all). Events, traces and the audit log are read-only;
memory edits, review decisions and policy edits go through governance services, which
trace and audit them."""

from desk.admin import categories, entities, events, layer_policy, memory, records, review, site, tasks

__all__ = ["categories", "entities", "events", "layer_policy", "memory", "records", "review", "site", "tasks"]
