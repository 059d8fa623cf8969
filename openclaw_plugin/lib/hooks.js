// Auto-recall (before_prompt_build), auto-capture (agent_end), session distillation
// (session_end, before_reset, command:new) and the /new reachability check. Hooks never
// throw into the host and never wait longer than timeoutMs: a slow or broken memory server
// costs one log line (and a queued retry), not a stalled agent.

import { createHash } from "node:crypto";
import { basename } from "node:path";

import { isRetryable } from "./client.js";
import { PLUGIN_ID } from "./manifest.js";
import { turnOrigin } from "./provenance.js";
import { describeConversation, resolveAdvertiser } from "./scope.js";
import { captureWindow, lastUserTurn, messageText, readSessionTurns, stripRecall, toTurns } from "./transcript.js";

export { lastUserTurn, messageText, stripRecall };

const MAX_TURN_CHARS = 4000;
const MAX_DISTILL_TURNS = 400;
const REMEMBERED_SESSIONS = 64;

function recentUserTurns(messages, limit) {
  return toTurns(messages)
    .filter((t) => t.role === "user")
    .map((t) => t.content)
    .slice(-limit);
}

// Resolves to undefined once `ms` have passed, whatever the promise is doing.
export function withDeadline(promise, ms) {
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function meaningful(text) {
  return String(text || "").replace(/[\s\p{P}\p{S}]/gu, "").length;
}

export function captureKey(session, turns) {
  const digest = createHash("sha256").update(`${session}\n${JSON.stringify(turns)}`).digest("hex").slice(0, 40);
  return `oc:${digest}`;
}

// Sends one queued job again (the retry queue's deliverer).
/** @param {import("./client.js").LingixClient} client @param {{distillTimeoutMs?: number}} [options] */
export function deliverJob(client, { distillTimeoutMs } = {}) {
  return (job) => (job.kind === "distill" ? client.distill(job.body, { timeoutMs: distillTimeoutMs }) : client.ingest(job.body));
}

export function buildHooks({ client, config, logger, queue, distillTimeoutMs }) {
  const log = logger || console;
  const distilled = new Map(); // session id → turn count already sent
  // The latest transcript agent_end saw per session: session_end's file may be archived
  // or only an identifier by the time the session ends.
  const transcripts = new Map();

  function remember(sessionId, messages) {
    if (!sessionId || !Array.isArray(messages)) return;
    transcripts.delete(sessionId);
    transcripts.set(sessionId, messages);
    if (transcripts.size > REMEMBERED_SESSIONS) transcripts.delete(transcripts.keys().next().value);
  }

  function scopeFor(ctx, what) {
    const scope = resolveAdvertiser(config, ctx);
    if (!scope.advertiser) {
      log.info?.(`${PLUGIN_ID}: ${what} skipped: no advertiser mapping applies to ${describeConversation(ctx)} and no fallback advertiser is configured`);
    }
    return scope.advertiser;
  }

  async function send(kind, body, call) {
    try {
      return await call();
    } catch (err) {
      if (queue && isRetryable(err)) {
        queue.enqueue(kind, body, err);
      } else {
        log.warn?.(`${PLUGIN_ID}: ${kind} skipped: ${err.message}`);
      }
      return undefined;
    }
  }

  async function recall(event = {}, ctx = {}) {
    if (!config.autoRecall) return undefined;
    // An explicit empty string means the turn has no textual request (an image, a
    // continuation); the prompt then holds history, which must not become the query.
    if (event.currentUserMessage === "") return undefined;
    const current =
      typeof event.currentUserMessage === "string" ? stripRecall(event.currentUserMessage) : lastUserTurn(event.messages) || stripRecall(event.prompt);
    if (!current) return undefined;
    const advertiser = scopeFor(ctx, "auto-recall");
    if (!advertiser) return undefined;
    const earlier = recentUserTurns(event.messages, 4).filter((t) => t !== current).slice(-3);
    const body = {
      messages: [...earlier, current].map((content) => ({ role: "user", content: content.slice(0, 8000) })),
      budget_tokens: config.recallBudgetTokens,
      top_k: config.recallTopK,
      advertiser,
    };
    try {
      const answer = await client.recall(body);
      if (answer && typeof answer.context === "string" && answer.context) {
        return { prependContext: answer.context };
      }
    } catch (err) {
      log.warn?.(`${PLUGIN_ID}: auto-recall skipped: ${err.message}`);
    }
    return undefined;
  }

  async function capture(event = {}, ctx = {}) {
    if (!config.autoCapture || event.success === false) return undefined;
    const origin = turnOrigin(ctx);
    if (!origin.capture) {
      log.info?.(`${PLUGIN_ID}: auto-capture skipped: ${origin.reason}`);
      return undefined;
    }
    remember(ctx.sessionId, event.messages);
    const turns = captureWindow(event.messages).map((t) => ({ role: t.role, content: t.content.slice(0, MAX_TURN_CHARS) }));
    const userText = turns.filter((t) => t.role === "user").map((t) => t.content).join("\n");
    // Greetings are not knowledge; a short "好的" counts only as an answer to a proposal.
    if (meaningful(userText) < (turns[0]?.role === "assistant" ? 1 : 4)) return undefined;
    const advertiser = scopeFor(ctx, "auto-capture");
    if (!advertiser) return undefined;
    const session = ctx.sessionKey || ctx.sessionId || event.sessionKey || "";
    const body = { messages: turns, idempotency_key: captureKey(session, turns), advertiser };
    const decision = await send("ingest", body, () => client.ingest(body));
    if (decision) {
      log.info?.(`${PLUGIN_ID}: captured turn: ${decision.action}${decision.layer ? ` ${decision.layer}` : ""} (event #${decision.event_id})`);
    }
    return decision;
  }

  // Sends a whole session to POST /distill. Called at session end, before a reset and on
  // /new; the server is idempotent per session and turn range, and the plugin skips a
  // session whose turns it already sent.
  /** @param {{sessionId: string, sessionFile?: string, messages?: unknown[], ctx?: Record<string, any>, reason: string}} session */
  async function distill({ sessionId, sessionFile, messages, ctx = {}, reason }) {
    if (!config.distillOnSessionEnd || !sessionId) return undefined;
    const origin = turnOrigin(ctx);
    if (!origin.capture) {
      log.info?.(`${PLUGIN_ID}: distill skipped for session ${sessionId}: ${origin.reason}`);
      return undefined;
    }
    let turns = toTurns(messages);
    if (!turns.length) turns = await readSessionTurns(sessionFile);
    if (!turns.length) turns = toTurns(transcripts.get(sessionId));
    if (!turns.some((t) => t.role === "user")) return undefined;
    turns = turns.slice(-MAX_DISTILL_TURNS).map((t) => ({ role: t.role, content: t.content.slice(0, MAX_TURN_CHARS) }));
    if (distilled.get(sessionId) === turns.length) return undefined;
    const advertiser = scopeFor(ctx, "distill");
    if (!advertiser) return undefined;
    const body = { session_id: String(sessionId), messages: turns, advertiser };
    const answer = await send("distill", body, () => client.distill(body, { timeoutMs: distillTimeoutMs }));
    distilled.set(sessionId, turns.length);
    transcripts.delete(sessionId);
    if (answer) {
      const actions = (answer.decisions || []).map((d) => d.action).join(", ") || "no candidates";
      log.info?.(`${PLUGIN_ID}: distilled session ${sessionId} (${reason}): ${answer.candidates ?? 0} candidates${answer.replayed ? ", replayed" : ""}: ${actions}`);
    }
    return answer;
  }

  function onSessionEnd(event = {}, ctx = {}) {
    return distill({
      sessionId: event.sessionId || ctx.sessionId,
      sessionFile: event.sessionFile,
      ctx: { ...ctx, sessionKey: event.sessionKey || ctx.sessionKey },
      reason: `session_end:${event.reason || "unknown"}`,
    });
  }

  function onBeforeReset(event = {}, ctx = {}) {
    const fromFile = typeof event.sessionFile === "string" ? basename(event.sessionFile).replace(/\.jsonl$/, "") : undefined;
    return distill({ sessionId: ctx.sessionId || fromFile, sessionFile: event.sessionFile, messages: event.messages, ctx, reason: "before_reset" });
  }

  async function onNewSession(event = {}) {
    const context = event.context || {};
    const previous = context.previousSessionEntry || context.sessionEntry;
    const ctx = { agentId: context.agentId, sessionKey: event.sessionKey, senderId: context.senderId, sessionId: previous?.sessionId };
    const work = [];
    if (previous?.sessionId) {
      work.push(distill({ sessionId: previous.sessionId, sessionFile: previous.sessionFile, ctx, reason: "command:new" }));
    }
    work.push(
      client.status().then(
        (status) => log.info?.(`${PLUGIN_ID}: new session; memory online (${status.provider}, ${Object.values(status.memories || {}).reduce((a, b) => a + b, 0)} active memories)`),
        (err) => {
          log.warn?.(`${PLUGIN_ID}: ${err.message}`);
          if (Array.isArray(event.messages)) event.messages.push(`Lingix memory is unavailable for this session: ${err.message}`);
        },
      ),
    );
    await Promise.all(work);
  }

  const bound = (fn) => (...args) => withDeadline(fn(...args), config.timeoutMs + 50);
  return {
    recall: bound(recall),
    capture: bound(capture),
    onSessionEnd: bound(onSessionEnd),
    onBeforeReset: bound(onBeforeReset),
    onNewSession: bound(onNewSession),
    distill,
  };
}
