"""`link_entities(memory)`: the one call that (re)builds a memory's entity links. The write
path calls it inside the write transaction (offline extraction); with the LLM configured it
also schedules `link_entities_with_llm` after the commit, so no model call ever holds the
write lock. The organise backfill calls either for memories written before links existed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from governance.knowledge.entities.offline import Extraction, extract_offline, triples_for
from governance.traces import trace_create
from judges.base import ProviderUnavailable
from judges.config import ProviderNotConfigured, resolve_provider_name
from memories.constants import LinkOrigin
from memories.entity_links import memories_entities_add, memory_entities_replace
from memories.entity_vocabulary import Mention
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

STAGE_LLM = "entities.llm"


@dataclass
class LinkReport:
    memory_id: int
    entities: int
    relations: int
    origin: str
    fallback_reason: str = ""


def _offline(memory: Memory, trigger_type: str) -> Extraction:
    return extract_offline(
        content=memory.content, advertiser=memory.advertiser, category=memory.category, data=memory.data or {}, trigger_type=trigger_type
    )


def link_entities(memory: Memory, *, trigger_type: str = "") -> LinkReport:
    """Offline extraction into the relation table; replaces the memory's previous links."""
    extraction = _offline(memory, trigger_type)
    count = memory_entities_replace(
        memory=memory,
        links=[(m, LinkOrigin.OFFLINE) for m in extraction.mentions],
        triples=[(s, p, o, LinkOrigin.OFFLINE) for s, p, o in extraction.triples],
    )
    return LinkReport(memory.pk, count, len(extraction.triples), LinkOrigin.OFFLINE)


def link_entities_bulk(memories: Sequence[Memory], *, trigger_types: dict[int, str] | None = None) -> int:
    """Offline links for many memories that have none yet (a trusted import, a backfill),
    in a few queries for the lot. Returns the number of links written."""
    trigger_types = trigger_types or {}
    links: list[tuple[int, Mention, str]] = []
    triples: list[tuple[int, Mention, str, Mention, str]] = []
    for memory in memories:
        extraction = _offline(memory, trigger_types.get(memory.pk, ""))
        links += [(memory.pk, m, LinkOrigin.OFFLINE) for m in extraction.mentions]
        triples += [(memory.pk, s, p, o, LinkOrigin.OFFLINE) for s, p, o in extraction.triples]
    return memories_entities_add(links=links, triples=triples) if links else 0


def llm_configured() -> bool:
    """MEMORY_ENTITIES_LLM asks for it, and the gateway provider is the one in use."""
    if not getattr(settings, "MEMORY_ENTITIES_LLM", False):
        return False
    try:
        return resolve_provider_name() == "openai"
    except ProviderNotConfigured:
        return False


@transaction.atomic
def link_entities_with_llm(memory: Memory, *, trigger_type: str = "") -> LinkReport:
    """The LLM's entities and relations added to the offline ones. Any failure (timeout,
    HTTP error, JSON of the wrong shape) keeps the offline links and says why in a trace."""
    extraction = _offline(memory, trigger_type)
    links = [(m, LinkOrigin.OFFLINE) for m in extraction.mentions]
    triples = [(s, p, o, LinkOrigin.OFFLINE) for s, p, o in extraction.triples]
    # Imported here: the model client comes with it, and most processes never link with a model.
    from governance.knowledge.entities.llm import extract_with_llm

    try:
        mentions, llm_triples, telemetry = extract_with_llm(content=memory.content, advertiser=memory.advertiser, category=memory.category)
    except ProviderUnavailable as exc:
        report = link_entities(memory, trigger_type=trigger_type)
        report.fallback_reason = str(exc)
        tel = exc.telemetry
        trace_create(
            stage=STAGE_LLM,
            decision="fallback_offline",
            reasons=[Reason.of(ReasonCode.ENTITY_MODEL_FAILED, why=str(exc))],
            memory=memory,
            scores={"entities": report.entities},
            provider=tel.provider if tel else "openai",
            model=tel.model if tel else "",
            prompt_version=tel.prompt_version if tel else "",
            latency_ms=tel.latency_ms if tel else 0.0,
        )
        return report
    known = {m for m, _ in links}
    links += [(m, LinkOrigin.LLM) for m in mentions if m not in known]
    # The LLM's relations, plus the offline head-entity ones for what it did not relate.
    triples = [(s, p, o, LinkOrigin.LLM) for s, p, o in llm_triples] + [t for t in triples if (t[0], t[1], t[2]) not in set(llm_triples)]
    if not extraction.triples and not llm_triples:
        triples = [(s, p, o, LinkOrigin.LLM) for s, p, o in triples_for([m for m, _ in links])]
    count = memory_entities_replace(memory=memory, links=links, triples=triples)
    trace_create(
        stage=STAGE_LLM,
        decision="linked",
        reasons=[Reason.of(ReasonCode.ENTITIES_LINKED, entities=count, relations=len(triples))],
        memory=memory,
        scores={"entities": count, "llm_only": len(links) - len(known), "relations": len(triples)},
        provider=telemetry.provider,
        model=telemetry.model,
        prompt_version=telemetry.prompt_version,
        latency_ms=telemetry.latency_ms,
        tokens_in=telemetry.tokens_in,
        tokens_out=telemetry.tokens_out,
        cost_usd=telemetry.cost_usd,
    )
    return LinkReport(memory.pk, count, len(triples), LinkOrigin.LLM)


def schedule_llm_linking(memory_id: int, *, trigger_type: str = "") -> None:
    """After the write commits, let the LLM refine the links (when one is configured)."""
    if not llm_configured():
        return

    def run() -> None:
        memory = Memory.objects.filter(pk=memory_id).first()
        if memory is not None:
            link_entities_with_llm(memory, trigger_type=trigger_type)

    transaction.on_commit(run)
