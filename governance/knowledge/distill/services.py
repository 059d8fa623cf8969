"""Session distillation: a whole conversation in, one funnel event per candidate out.

Each candidate goes through `event_ingest(messages=…)`, the same path as `/ingest` with
role-tagged turns, so the confirmation rule (a suggestion counts only when a later user
turn confirms it), the trusted-source rules and every funnel stage apply unchanged, and
the event keeps the session id and turn indices it came from.

A run is idempotent per (scope, session, turn range): the first answer is stored and a
repeat returns it with `replayed: true`, writing nothing. Each candidate also carries an
idempotency key made from the session and its turns, so a run cut short and retried
replays the events it already wrote."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from governance.funnel.errors import InputTooLarge
from governance.intake.services import event_ingest
from governance.knowledge.distill.extract import extract_candidates
from governance.knowledge.distill.transcript import Transcript, Turn, transcript_from_jsonl, transcript_from_messages
from governance.models import DistillRun
from judges.config import get_provider
from memories.exceptions import DomainError, InvalidInput
from textrules.safety import Findings, refuse_secret_code, scan_conversation

MAX_SESSION_ID = 200
# Every event a distillation sends carries an idempotency key with this prefix: the desk
# tells a distilled event from a conversation sent to /ingest by it.
DISTILL_KEY_PREFIX = "distill:"


def _session(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id.strip():
        raise InvalidInput("session_id is required (the conversation's id, e.g. the OpenClaw session id)")
    value = session_id.strip()
    if len(value) > MAX_SESSION_ID:
        raise InputTooLarge(f"session_id is longer than {MAX_SESSION_ID} characters")
    # Stored on every event and run, and echoed by /memories/{id}/source: never a credential.
    return refuse_secret_code(value, field_name="session_id") or value


def transcript_read(*, messages: Any = None, jsonl: str | None = None) -> Transcript:
    if (messages is None) == (jsonl is None):
        raise InvalidInput("give either 'messages' or 'jsonl'")
    return transcript_from_messages(messages) if messages is not None else transcript_from_jsonl(jsonl)


def _joined_scan(transcript: Transcript) -> tuple[Transcript, dict[int, Findings]]:
    """The whole conversation's joined view, scanned once before anything is cut out of it:
    a key typed in pieces over several turns is gone from every turn before the extractor's
    prompt is built or a candidate takes only some of those turns to the funnel (which
    would see each piece alone). What each turn held goes with its candidate, so the
    funnel refuses it as it refuses a credential sent to /ingest."""
    turns = transcript.turns
    scans = scan_conversation([t.content for t in turns], roles=[str(t.role) for t in turns])
    clean = [dataclasses.replace(t, content=scan.text) for t, scan in zip(turns, scans, strict=True)]
    held = {t.index: Findings(credentials=scan.credentials, personal=scan.personal) for t, scan in zip(turns, scans, strict=True)}
    return dataclasses.replace(transcript, turns=clean), held


def _turn_range(turns: list[Turn], turn_start: int | None, turn_end: int | None) -> tuple[int, int]:
    last = turns[-1].index
    start = 0 if turn_start is None else turn_start
    end = last if turn_end is None else min(turn_end, last)
    if start < 0 or (turn_end is not None and turn_end < 0):
        raise InvalidInput("turn_start and turn_end must be 0 or more")
    if start > end:
        raise InvalidInput(f"turn range {start}..{turn_end if turn_end is not None else end} is empty (the transcript has turns 0..{last})")
    return start, end


def _candidate_key(scope: str, session_id: str, indices: list[int]) -> str:
    digest = hashlib.sha256(f"{scope}\x00{session_id}".encode()).hexdigest()[:24]
    return f"{DISTILL_KEY_PREFIX}{digest}:{'-'.join(map(str, indices))}"[:128]


def _stored(scope: str, session_id: str, start: int, end: int) -> dict[str, Any] | None:
    run = DistillRun.objects.filter(scope=scope, session_id=session_id, turn_start=start, turn_end=end).first()
    return None if run is None else {**run.result, "replayed": True}


def session_distill(
    *,
    session_id: str,
    messages: list[dict[str, Any]] | None = None,
    jsonl: str | None = None,
    advertiser: str | None = None,
    turn_start: int | None = None,
    turn_end: int | None = None,
    actor: str = "",
    business_line: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Distil one conversation (messages or an OpenClaw JSONL transcript) into funnel
    decisions. `advertiser` is where the memories land (the caller has checked scope);
    `progress(done, total)` is called after each candidate (the CLI's progress bar)."""
    session_id = _session(session_id)
    # The run row keeps the advertiser as its scope: refused here, not only later by each
    # candidate's event (where a refusal would only skip the candidate).
    advertiser = refuse_secret_code(advertiser, field_name="advertiser")
    business_line = refuse_secret_code(business_line, field_name="business_line") or ""
    transcript, held = _joined_scan(transcript_read(messages=messages, jsonl=jsonl))
    start, end = _turn_range(transcript.turns, turn_start, turn_end)
    scope = advertiser or ""
    replay = _stored(scope, session_id, start, end)
    if replay is not None:
        return replay

    extraction = extract_candidates(get_provider(), transcript.turns, start=start, end=end)
    by_index = {t.index: t for t in transcript.turns}
    decisions, skipped = [], []
    for done, candidate in enumerate(extraction.candidates, start=1):
        turns = [by_index[i] for i in candidate.turns]
        try:
            decision = event_ingest(
                messages=[{"role": t.role, "content": t.content, "index": t.index} for t in turns],
                advertiser=advertiser,
                actor=actor,
                business_line=business_line,
                session_id=session_id,
                idempotency_key=_candidate_key(scope, session_id, candidate.turns),
                findings=sum((held[t.index] for t in turns), Findings()),
            )
        except DomainError as exc:  # one unusable candidate (an oversized turn) does not sink the session
            skipped.append({"turns": candidate.turns, "kind": candidate.kind, "detail": str(exc)})
            continue
        decisions.append({**decision.as_dict(), "turns": candidate.turns, "kind": candidate.kind})
        if progress is not None:
            progress(done, len(extraction.candidates))

    result: dict[str, Any] = {
        "session_id": session_id,
        "turns": sum(1 for t in transcript.turns if start <= t.index <= end),
        "turn_start": start,
        "turn_end": end,
        "candidates": len(extraction.candidates),
        "replayed": False,
        "decisions": decisions,
        "skipped": skipped,
        "extractor": extraction.extractor,
        "extractor_note": extraction.note,
    }
    if extraction.telemetry:
        result["extractor_telemetry"] = extraction.telemetry
    if transcript.skipped_lines:
        result["unreadable_lines"] = transcript.skipped_lines[:50]
    try:
        with transaction.atomic():
            DistillRun.objects.create(
                scope=scope,
                session_id=session_id,
                turn_start=start,
                turn_end=end,
                actor=actor[:128],
                extractor=extraction.extractor,
                result={k: v for k, v in result.items() if k != "replayed"},
            )
    except IntegrityError:
        # A concurrent run of the same range finished first; its answer is the one kept.
        return _stored(scope, session_id, start, end) or result
    return result
