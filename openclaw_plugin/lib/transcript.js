// Conversation text as Lingix should see it: role-tagged turns, with the <lingix-memory>
// block the plugin injected removed, so recalled memories never come back as something
// the user said.

import { readFile } from "node:fs/promises";

const BLOCK = /<lingix-memory>[\s\S]*?<\/lingix-memory>\s*/g;
// A block cut off by truncation still must not be captured.
const OPEN_BLOCK = /<lingix-memory>[\s\S]*$/;
const ROLES = new Set(["user", "assistant"]);

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
  return String(text || "").replace(BLOCK, "").replace(OPEN_BLOCK, "").trim();
}

// [{role, content}] for the user and assistant messages that carry text.
export function toTurns(messages) {
  if (!Array.isArray(messages)) return [];
  const turns = [];
  for (const m of messages) {
    const message = m && typeof m === "object" && m.message && typeof m.message === "object" ? m.message : m;
    if (!message || !ROLES.has(message.role)) continue;
    const content = stripRecall(messageText(message));
    if (content) turns.push({ role: message.role, content });
  }
  return turns;
}

// The user's words in the last turn: the run of user messages before the final reply.
export function lastUserTurn(messages) {
  const turns = toTurns(messages);
  let i = turns.length - 1;
  while (i >= 0 && turns[i].role !== "user") i -= 1;
  const parts = [];
  while (i >= 0 && turns[i].role === "user") {
    parts.unshift(turns[i].content);
    i -= 1;
  }
  return parts.join("\n").trim();
}

// What one finished turn contributes to memory: the assistant's previous reply (what the
// user may be answering) followed by the user's messages of this turn. The reply the
// model just gave is left out: nothing after it can confirm it yet.
export function captureWindow(messages) {
  const turns = toTurns(messages);
  let end = turns.length - 1;
  while (end >= 0 && turns[end].role !== "user") end -= 1;
  if (end < 0) return [];
  let start = end;
  while (start > 0 && turns[start - 1].role === "user") start -= 1;
  const window = turns.slice(start, end + 1);
  if (start > 0 && turns[start - 1].role === "assistant") window.unshift(turns[start - 1]);
  return window;
}

// An OpenClaw session transcript (JSONL) as turns. Lines that are not messages (session
// headers, tool results, model changes) are skipped; a broken line is skipped, not fatal.
export function parseSessionJsonl(text) {
  const messages = [];
  for (const line of String(text || "").split("\n")) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line);
      if (entry && (entry.type === undefined || entry.type === "message")) messages.push(entry);
    } catch {
      // a torn last line while the session is still being written
    }
  }
  return toTurns(messages);
}

export async function readSessionTurns(sessionFile) {
  if (!sessionFile || typeof sessionFile !== "string") return [];
  try {
    return parseSessionJsonl(await readFile(sessionFile, "utf8"));
  } catch {
    // "sessionFile can be a transcript identifier rather than a readable file path"
    return [];
  }
}
