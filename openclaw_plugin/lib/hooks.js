// Auto-recall (before_prompt_build), auto-capture (agent_end) and the /new check
// (command:new). Hooks never throw into the host and never wait longer than timeoutMs:
// a slow or broken memory server costs one log line, not a stalled agent.

import { createHash } from "node:crypto";

const BLOCK = /<lingix-memory>[\s\S]*?<\/lingix-memory>\s*/g;
const MAX_CAPTURE_CHARS = 4000;

export function messageText(message) {
  if (!message) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : part && part.type === "text" && typeof part.text === "string" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

export function stripRecall(text) {
  return String(text || "").replace(BLOCK, "").trim();
}

// The user's words in the last turn: the run of user messages before the final reply.
export function lastUserTurn(messages) {
  if (!Array.isArray(messages)) return "";
  let i = messages.length - 1;
  while (i >= 0 && messages[i]?.role !== "user") i -= 1;
  const parts = [];
  while (i >= 0 && messages[i]?.role === "user") {
    parts.unshift(stripRecall(messageText(messages[i])));
    i -= 1;
  }
  return parts.filter(Boolean).join("\n").trim();
}

function recentUserTurns(messages, limit) {
  if (!Array.isArray(messages)) return [];
  return messages
    .filter((m) => m?.role === "user")
    .map((m) => stripRecall(messageText(m)))
    .filter(Boolean)
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

export function buildHooks({ client, config, logger }) {
  const log = logger || console;

  async function recall(event = {}) {
    if (!config.autoRecall) return undefined;
    // An explicit empty string means the turn has no textual request (an image, a
    // continuation); the prompt then holds history, which must not become the query.
    if (event.currentUserMessage === "") return undefined;
    const current =
      typeof event.currentUserMessage === "string" ? stripRecall(event.currentUserMessage) : lastUserTurn(event.messages) || stripRecall(event.prompt);
    if (!current) return undefined;
    const earlier = recentUserTurns(event.messages, 4).filter((t) => t !== current).slice(-3);
    const body = {
      messages: [...earlier, current].map((content) => ({ role: "user", content: content.slice(0, 8000) })),
      budget_tokens: config.recallBudgetTokens,
    };
    if (config.advertiser) body.advertiser = config.advertiser;
    try {
      const answer = await client.recall(body);
      if (answer && typeof answer.context === "string" && answer.context) {
        return { prependContext: answer.context };
      }
    } catch (err) {
      log.warn?.(`lingix-memory: auto-recall skipped: ${err.message}`);
    }
    return undefined;
  }

  async function capture(event = {}, ctx = {}) {
    if (!config.autoCapture || event.success === false) return undefined;
    const text = lastUserTurn(event.messages).slice(0, MAX_CAPTURE_CHARS);
    // Greetings and one-word answers are not knowledge; the funnel would reject them anyway.
    if (text.replace(/[\s\p{P}\p{S}]/gu, "").length < 4) return undefined;
    const session = ctx.sessionKey || ctx.sessionId || event.sessionKey || "";
    const key = `oc:${createHash("sha256").update(`${session}\n${text}`).digest("hex").slice(0, 40)}`;
    const body = { text, source: "user", idempotency_key: key };
    if (config.advertiser) body.advertiser = config.advertiser;
    try {
      const decision = await client.ingest(body);
      log.info?.(`lingix-memory: captured user statement: ${decision.action}${decision.layer ? ` ${decision.layer}` : ""} (event #${decision.event_id})`);
      return decision;
    } catch (err) {
      log.warn?.(`lingix-memory: auto-capture skipped: ${err.message}`);
      return undefined;
    }
  }

  async function onNewSession(event = {}) {
    try {
      const status = await client.status();
      log.info?.(`lingix-memory: new session; memory online (${status.provider}, ${Object.values(status.memories || {}).reduce((a, b) => a + b, 0)} active memories)`);
    } catch (err) {
      log.warn?.(`lingix-memory: ${err.message}`);
      if (Array.isArray(event.messages)) event.messages.push(`Lingix memory is unavailable for this session: ${err.message}`);
    }
  }

  const bound = (fn) => (...args) => withDeadline(fn(...args), config.timeoutMs + 50);
  return { recall: bound(recall), capture: bound(capture), onNewSession: bound(onNewSession) };
}
