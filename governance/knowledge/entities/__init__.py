"""Entity links of a memory: extraction (offline patterns + event fields, or the LLM) and
the one function the write path and the organise backfill call, `link_entities`."""

from governance.knowledge.entities.link import link_entities, link_entities_with_llm

__all__ = ["link_entities", "link_entities_with_llm"]
