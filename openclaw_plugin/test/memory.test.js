// Tier 1, the pieces behind OpenClaw's memory: both plugin modes as the host would
// register them, advertiser mapping, turn provenance, transcript cleaning, the retry
// queue's backoff and persistence, and distillation (against the live server when
// tests/plugin/test_plugin_node.py provides one).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";

import supplementPlugin from "../index.js";
import { LingixClient, LingixError } from "../lib/client.js";
import { resolveConfig } from "../lib/config.js";
import { flushPlan, memoryIdOf, promptSection } from "../lib/memory-surface.js";
import { SLOT_TOOL_NAMES, TOOL_NAMES } from "../lib/plugin.js";
import { turnOrigin } from "../lib/provenance.js";
import { adoptLegacyQueue, backoffMs, QUEUE_FILE, RetryQueue, retryService } from "../lib/retry-queue.js";
import { resolveAdvertiser } from "../lib/scope.js";
import { captureWindow, parseSessionJsonl, stripRecall, toTurns } from "../lib/transcript.js";
import slotPlugin from "../slot/index.js";
import { recordingApi } from "./fake-api.js";

const BASE_URL = process.env.LINGIX_BASE_URL;
const KEY_A = process.env.LINGIX_KEY_A;
const KEY_OPS = process.env.LINGIX_KEY_OPS;
const live = Boolean(BASE_URL && KEY_A && KEY_OPS);
const readJson = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8"));
const rootManifest = readJson("../openclaw.plugin.json");
const slotManifest = readJson("../slot/openclaw.plugin.json");
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

function register(plugin, config = {}, kind = plugin.kind) {
  const api = recordingApi({ baseUrl: BASE_URL || "http://127.0.0.1:9", apiKey: KEY_A || "lgx_00000000_offline", advertiser: "brand_A", timeoutMs: 5000, ...config }, { kind });
  plugin.register(api);
  return api;
}

describe("the two modes", () => {
  test("supplement mode (the default) coexists with memory-core", () => {
    assert.equal(supplementPlugin.kind, undefined);
    assert.equal(rootManifest.kind, undefined);
    const api = register(supplementPlugin);
    assert.deepEqual(api.toolNames().sort(), [...TOOL_NAMES].sort());
    assert.deepEqual([...rootManifest.contracts.tools].sort(), [...TOOL_NAMES].sort());
    assert.equal(api.memoryCapability, undefined);
    assert.equal(api.corpusSupplements.length, 1);
    assert.equal(api.promptSupplements.length, 1);
    assert.deepEqual([...api.hooks.keys()].sort(), ["agent_end", "before_prompt_build", "before_reset", "session_end"]);
    assert.deepEqual(api.services.map((s) => s.id), ["lingix-agent-memory-retry-queue"]);
    const lines = api.promptSupplements[0]({ availableTools: new Set(["memory_search", "lingix_memory_search"]) });
    assert.match(lines.join("\n"), /lingix_memory_search \/ memory_search/);
    assert.deepEqual(api.promptSupplements[0]({ availableTools: new Set() }), []);
  });

  test("slot mode is kind memory and registers the memory capability and memory_search/memory_get", async () => {
    assert.equal(slotPlugin.kind, "memory");
    assert.equal(slotManifest.kind, "memory");
    assert.equal(slotManifest.id, rootManifest.id);
    assert.deepEqual(slotManifest.configSchema, rootManifest.configSchema, "both manifests accept the same config");
    assert.deepEqual([...slotManifest.contracts.tools].sort(), [...TOOL_NAMES, ...SLOT_TOOL_NAMES].sort());
    assert.throws(() => register(slotPlugin, {}, null), /only memory plugins/);
    const api = register(slotPlugin);
    assert.deepEqual(api.toolNames().sort(), [...TOOL_NAMES, ...SLOT_TOOL_NAMES].sort());
    const cap = api.memoryCapability;
    assert.equal(typeof cap.promptBuilder, "function");
    assert.equal(typeof cap.flushPlanResolver, "function");
    assert.equal(typeof cap.runtime.getMemorySearchManager, "function");
    assert.deepEqual(cap.runtime.resolveMemoryBackendConfig({}), { backend: "builtin" });
    const { manager } = await cap.runtime.getMemorySearchManager({ agentId: "main", purpose: "status" });
    for (const fn of ["search", "readFile", "status", "probeEmbeddingAvailability", "probeVectorAvailability"]) assert.equal(typeof manager[fn], "function", fn);
    assert.equal(manager.status().provider, "lingix");
    assert.equal((await manager.readFile({ relPath: "memory/2026-01-01.md" })).status, "not_found");
    assert.equal(api.corpusSupplements.length, 0);
  });

  test("the flush plan persists through the governed ingest, not a file", () => {
    const plan = flushPlan({ contextWindowTokens: 128000 });
    assert.match(plan.prompt, /lingix_memory_ingest/);
    assert.match(plan.prompt, /source=user/);
    assert.match(plan.systemPrompt, /lingix_memory_ingest only/);
    for (const key of ["softThresholdTokens", "forceFlushTranscriptBytes", "reserveTokensFloor"]) assert.ok(Number.isInteger(plan[key]) && plan[key] > 0, key);
    assert.equal(flushPlan({ cfg: { agents: { defaults: { compaction: { memoryFlush: { enabled: false } } } } } }), null);
    assert.deepEqual(promptSection(new Set(["read"]), ["memory_search"]), []);
    assert.equal(memoryIdOf("lingix/memory/42"), 42);
    assert.equal(memoryIdOf("memory/2026-01-01.md"), undefined);
  });
});

describe("advertiser mapping", () => {
  const config = resolveConfig({
    advertiser: "brand_A",
    advertisers: [
      { agent: "ops-b", advertiser: "brand_B" },
      { channel: "feishu", advertiser: "brand_C" },
      { channel: "feishu", sender: "ou_client_d", advertiser: "brand_D" },
      { advertiser: "ignored: a rule that names nothing" },
      { agent: "x" },
    ],
  });

  test("rules match agent, channel and sender; the most specific wins; the static advertiser is the fallback", () => {
    assert.equal(config.advertisers.length, 3);
    assert.deepEqual(resolveAdvertiser(config, { agentId: "ops-b" }), { advertiser: "brand_B", via: "rule", rule: config.advertisers[0] });
    assert.equal(resolveAdvertiser(config, { agentId: "ops-b", channelId: "feishu" }).advertiser, "brand_C");
    assert.equal(resolveAdvertiser(config, { channel: "feishu", senderId: "ou_client_d" }).advertiser, "brand_D");
    assert.equal(resolveAdvertiser(config, { messageChannel: "feishu", requesterSenderId: "ou_other" }).advertiser, "brand_C");
    assert.deepEqual(resolveAdvertiser(config, { agentId: "main" }), { advertiser: "brand_A", via: "fallback" });
  });

  test("no rule and no fallback: recall, capture and the slot tools refuse instead of guessing", async () => {
    const strict = { advertiser: "", advertisers: [{ agent: "ops-b", advertiser: "brand_B" }], baseUrl: "http://127.0.0.1:9" };
    assert.deepEqual(resolveAdvertiser(resolveConfig(strict), { agentId: "main" }), { advertiser: undefined, via: "none" });
    const api = register(slotPlugin, strict);
    assert.equal(await api.hooks.get("before_prompt_build")({ currentUserMessage: "上次 brand_A 的出价上限？" }, { agentId: "main" }), undefined);
    const captured = await api.hooks.get("agent_end")({ success: true, messages: [{ role: "user", content: "brand_B 医药OTC 出价上限 1.5元" }] }, { agentId: "main" });
    assert.equal(captured, undefined);
    assert.ok(api.logs.some(([, msg]) => /auto-capture skipped: no advertiser mapping applies to agent=main/.test(msg)), JSON.stringify(api.logs));
    const search = await api.tool("memory_search", { agentId: "main" }).execute("t", { query: "出价" });
    assert.match(search.content[0].text, /No advertiser mapping applies/);
    assert.equal(search.details.disabled, true);
    const supplement = register(supplementPlugin, strict).corpusSupplements[0];
    assert.deepEqual(await supplement.search({ query: "出价", agentId: "main" }), []);
  });
});

describe("turn provenance", () => {
  test("cron, heartbeat, system and sub-agent turns are not captured; a person's turn is", () => {
    const no = [
      { trigger: "cron" },
      { trigger: "heartbeat" },
      { jobId: "job-1" },
      { inputProvenance: { kind: "internal_system" } },
      { inputProvenance: { kind: "inter_session", sourceRole: "subagent" } },
      { inputProvenance: { kind: "inter_session", sourceSessionKey: "agent:main:other" } },
      { sessionKey: "agent:main:cron:daily-brief" },
      { sessionKey: "agent:main:subagent:3f2a" },
    ];
    for (const ctx of no) assert.equal(turnOrigin(ctx).capture, false, JSON.stringify(ctx));
    assert.match(turnOrigin({ inputProvenance: { kind: "inter_session", sourceRole: "subagent" } }).reason, /sub-agent/);
    assert.deepEqual(turnOrigin({ trigger: "user", inputProvenance: { kind: "external_user" } }), { capture: true, reason: "external user" });
    assert.equal(turnOrigin({ sessionKey: "agent:main:main" }).capture, true);
  });

  test("a cron turn never reaches the server", async () => {
    const api = register(supplementPlugin, { baseUrl: "http://127.0.0.1:9" });
    const out = await api.hooks.get("agent_end")({ success: true, messages: [{ role: "user", content: "定时巡检：brand_A 出价上限调整为 9.9元" }] }, { trigger: "cron", sessionKey: "agent:main:cron:x" });
    assert.equal(out, undefined);
    assert.ok(api.logs.some(([, msg]) => /auto-capture skipped: cron-triggered run/.test(msg)));
    assert.ok(!api.logs.some(([level]) => level === "warn"), "no request was attempted");
  });
});

describe("what is captured", () => {
  const block = "<lingix-memory>\n- [L1 core rule · #3] brand_A 医药OTC 出价不超过2元\n</lingix-memory>\n";

  test("the injected block never comes back, even cut off", () => {
    assert.equal(stripRecall(`${block}用户纠正：出价不要超过1.5元`), "用户纠正：出价不要超过1.5元");
    assert.equal(stripRecall("先说结论<lingix-memory>\n- [L1] 被截断的"), "先说结论");
    assert.deepEqual(toTurns([{ role: "user", content: block }]), []);
  });

  test("the window is the assistant's previous reply and the user's answer, role-tagged", () => {
    const messages = [
      { role: "user", content: "brand_A 美妆新计划冷启动出价怎么定？" },
      { role: "assistant", content: [{ type: "text", text: "建议冷启动期出价先设 2.2元。" }, { type: "toolCall", name: "x" }] },
      { role: "toolResult", content: "ignored" },
      { role: "user", content: [{ type: "text", text: `${block}好的，就按这个` }] },
      { role: "assistant", content: "好的，已记录。" },
    ];
    assert.deepEqual(captureWindow(messages), [
      { role: "assistant", content: "建议冷启动期出价先设 2.2元。" },
      { role: "user", content: "好的，就按这个" },
    ]);
    assert.deepEqual(captureWindow([{ role: "user", content: "ROI 目标 3.5" }, { role: "assistant", content: "收到" }]), [{ role: "user", content: "ROI 目标 3.5" }]);
  });

  test("an OpenClaw session JSONL becomes turns; other lines and a torn last line are skipped", () => {
    const jsonl = [
      JSON.stringify({ type: "session", id: "s1" }),
      JSON.stringify({ type: "message", message: { role: "user", content: [{ type: "text", text: `${block}双11 美妆预算怎么安排？` }] } }),
      JSON.stringify({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "建议预算提高到 300万。" }] } }),
      JSON.stringify({ type: "model_change", provider: "x" }),
      '{"type":"message","message":{"role":"user","content":"torn',
    ].join("\n");
    assert.deepEqual(parseSessionJsonl(jsonl), [
      { role: "user", content: "双11 美妆预算怎么安排？" },
      { role: "assistant", content: "建议预算提高到 300万。" },
    ]);
  });
});

describe("retry queue", () => {
  const down = () => new LingixError("Lingix memory is unreachable at http://127.0.0.1:9 (ECONNREFUSED)", { code: "unreachable" });

  test("backoff doubles from the base, is capped, and jitters within ±20%", () => {
    const policy = { baseMs: 1000, maxMs: 8000 };
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, policy, () => 0.5)), [1000, 2000, 4000, 8000, 8000, 8000]);
    assert.equal(backoffMs(2, policy, () => 0), 1600);
    assert.equal(backoffMs(2, policy, () => 0.999999), 2400);
  });

  test("a failed job waits its turn, backs off on each failure, is delivered once the server answers, and survives a restart", async () => {
    let clock = 1_000_000;
    let serverUp = false;
    const sent = [];
    const send = async (job) => {
      if (!serverUp) throw down();
      sent.push(job.body);
      return { action: "WRITE" };
    };
    const dir = mkdtempSync(join(tmpdir(), "lingix-queue-"));
    const queue = new RetryQueue({ send, baseMs: 1000, maxMs: 60000, maxAttempts: 5, logger: quiet, now: () => clock, random: () => 0.5 }).attach(dir);
    queue.enqueue("ingest", { idempotency_key: "oc:1", messages: [{ role: "user", content: "周末预算下调到 8万" }] }, down());
    assert.equal(queue.jobs[0].nextAt - clock, 1000);
    assert.equal(await queue.drain(), 0, "not due yet");
    clock += 1000;
    assert.equal(await queue.drain(), 0);
    assert.equal(queue.jobs[0].attempts, 2);
    assert.equal(queue.jobs[0].nextAt - clock, 2000, "second retry waits twice as long");

    // the gateway restarts: a new queue reads the same file
    const saved = JSON.parse(readFileSync(join(dir, QUEUE_FILE), "utf8"));
    assert.equal(saved.jobs.length, 1);
    const reborn = new RetryQueue({ send, baseMs: 1000, maxMs: 60000, maxAttempts: 5, logger: quiet, now: () => clock, random: () => 0.5 }).attach(dir);
    assert.equal(reborn.size, 1);
    serverUp = true;
    clock += 2000;
    assert.equal(await reborn.drain(), 1);
    assert.equal(reborn.size, 0);
    assert.deepEqual(sent.map((b) => b.idempotency_key), ["oc:1"]);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, QUEUE_FILE), "utf8")).jobs, []);
  });

  test("a refusal (4xx) is final, and a job is given up after maxAttempts", async () => {
    let clock = 0;
    let answer = new LingixError("HTTP 422", { status: 422, code: "http_error" });
    const queue = new RetryQueue({ send: async () => { throw answer; }, baseMs: 10, maxMs: 100, maxAttempts: 3, logger: quiet, now: () => clock, random: () => 0.5 });
    queue.enqueue("ingest", { idempotency_key: "oc:bad" }, down());
    clock += 10;
    await queue.drain();
    assert.equal(queue.size, 0);
    assert.match(queue.dead[0].why, /refused: HTTP 422/);
    answer = new LingixError("HTTP 503", { status: 503, code: "http_error" });
    queue.enqueue("distill", { session_id: "s" }, answer);
    for (let i = 0; i < 5; i += 1) {
      clock += 1000;
      await queue.drain();
    }
    assert.equal(queue.size, 0);
    assert.equal(queue.dead[1].attempts, 3);
  });

  test("the service attaches the queue under the host's state directory; a capture to a dead server is queued", async () => {
    const api = register(supplementPlugin, { baseUrl: "http://127.0.0.1:9", retryBaseMs: 60000 });
    const stateDir = mkdtempSync(join(tmpdir(), "lingix-state-"));
    const service = api.services[0];
    await service.start({ stateDir, logger: quiet, config: {} });
    const out = await api.hooks.get("agent_end")({ success: true, messages: [{ role: "user", content: "记录一下：brand_A 医药OTC 周末预算下调到 8万" }] }, { sessionKey: "agent:main:q" });
    assert.equal(out, undefined);
    await service.stop({ stateDir, logger: quiet, config: {} });
    const saved = JSON.parse(readFileSync(join(stateDir, "lingix-agent-memory", QUEUE_FILE), "utf8"));
    assert.equal(saved.jobs.length, 1);
    assert.equal(saved.jobs[0].kind, "ingest");
    assert.deepEqual(saved.jobs[0].body.messages, [{ role: "user", content: "记录一下：brand_A 医药OTC 周末预算下调到 8万" }]);
    assert.equal(saved.jobs[0].body.advertiser, "brand_A");
    assert.match(saved.jobs[0].body.idempotency_key, /^oc:[0-9a-f]{40}$/);
    assert.ok(retryService(new RetryQueue({ send: async () => ({}) })).id);
  });

  test("a queue file left under the former id (lingix-memory/) is moved to lingix-agent-memory/ and delivered", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "lingix-state-"));
    const job = { id: "j1", kind: "ingest", body: { idempotency_key: "oc:legacy" }, attempts: 1, nextAt: 0, lastError: "down" };
    mkdirSync(join(stateDir, "lingix-memory"));
    writeFileSync(join(stateDir, "lingix-memory", QUEUE_FILE), JSON.stringify({ version: 1, jobs: [job], dead: [] }));
    const sent = [];
    const queue = new RetryQueue({ send: async (j) => sent.push(j.body), logger: quiet, now: () => 1 });
    const service = retryService(queue);
    const logs = [];
    service.start({ stateDir, logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m) }, config: {} });
    await service.stop();
    assert.equal(queue.file, join(stateDir, "lingix-agent-memory", QUEUE_FILE));
    assert.ok(!existsSync(join(stateDir, "lingix-memory", QUEUE_FILE)));
    assert.equal(queue.size, 1);
    assert.equal(await queue.drain(), 1);
    assert.deepEqual(sent, [{ idempotency_key: "oc:legacy" }]);
    assert.match(logs.join("\n"), /moved the retry queue .*former id/);
    // a queue already under the new id is never overwritten by an old one
    writeFileSync(join(stateDir, "lingix-memory", QUEUE_FILE), JSON.stringify({ version: 1, jobs: [job], dead: [] }));
    assert.equal(adoptLegacyQueue(stateDir, quiet), false);
  });
});

describe("distillation hooks (no server)", () => {
  test("session_end uses the transcript agent_end saw when the file is gone; a failed send waits in the queue", async () => {
    const api = register(supplementPlugin, { baseUrl: "http://127.0.0.1:7", retryBaseMs: 60000 });
    const messages = [
      { role: "user", content: "以后 brand_A 美妆新计划 ROI 目标统一定为 3.2" },
      { role: "assistant", content: "好的。" },
    ];
    await api.hooks.get("agent_end")({ success: true, messages }, { sessionId: "sess-gone", sessionKey: "agent:main:x" });
    const out = await api.hooks.get("session_end")({ sessionId: "sess-gone", sessionFile: "/nonexistent/sess-gone.jsonl", messageCount: 2, reason: "idle" }, { agentId: "main" });
    assert.equal(out, undefined);
    const queued = api.logs.filter(([, msg]) => /distill queued for retry/.test(msg));
    assert.equal(queued.length, 1, JSON.stringify(api.logs));
    // before_reset of the same session: already sent (queued), not sent twice
    await api.hooks.get("before_reset")({ sessionFile: "/nonexistent/sess-gone.jsonl", messages }, {});
    assert.equal(api.logs.filter(([, msg]) => /distill queued for retry/.test(msg)).length, 1);
  });

  test("a cron session is not distilled", async () => {
    const api = register(supplementPlugin, { baseUrl: "http://127.0.0.1:7" });
    const out = await api.hooks.get("before_reset")({ messages: [{ role: "user", content: "定时巡检：出价上限 9.9元" }] }, { sessionId: "c1", sessionKey: "agent:main:cron:job" });
    assert.equal(out, undefined);
    assert.ok(api.logs.some(([, msg]) => /distill skipped for session c1: machine session/.test(msg)), JSON.stringify(api.logs));
  });
});

describe("distillation and drill-down against the live server", { skip: !live && "LINGIX_BASE_URL/LINGIX_KEY_A/LINGIX_KEY_OPS not set" }, () => {
  test("session_end sends the transcript (block stripped) to /distill; memories link back to their turns", async (t) => {
    const client = new LingixClient(resolveConfig({ baseUrl: BASE_URL, apiKey: KEY_A }));
    try {
      await client.distill({ session_id: "probe", messages: [{ role: "user", content: "ping" }], advertiser: "brand_A" });
    } catch (err) {
      if (err.status === 404) return t.skip("this server has no POST /api/v1/distill yet");
    }
    const api = register(supplementPlugin, { timeoutMs: 20000 });
    const dir = mkdtempSync(join(tmpdir(), "lingix-session-"));
    const file = join(dir, "s.jsonl");
    const line = (role, text) => JSON.stringify({ type: "message", message: { role, content: [{ type: "text", text }] } });
    writeFileSync(file, [
      JSON.stringify({ type: "session", id: "node-distill-1" }),
      line("user", "<lingix-memory>\n- [L1] 旧规则\n</lingix-memory>\n更正一下：brand_A 宠物食品的日预算上限是3000元，不是4500元，以后按3000元控制。"),
      line("assistant", "收到，已记下日预算上限3000元。"),
    ].join("\n"));
    const answer = await api.hooks.get("session_end")({ sessionId: "node-distill-1", sessionFile: file, messageCount: 2, reason: "new" }, { agentId: "main", sessionId: "node-distill-1" });
    assert.equal(answer.session_id, "node-distill-1", JSON.stringify(answer));
    assert.ok(answer.decisions.length >= 1, JSON.stringify(answer));
    const written = answer.decisions.find((d) => d.memory_id);
    assert.ok(written, JSON.stringify(answer));
    const source = await api.tools.get("lingix_memory_source").execute("t", { memory_id: written.memory_id });
    assert.match(source.content[0].text, /session node-distill-1/);
    assert.ok(source.details.turns.length >= 1);
    assert.ok(!source.details.turns.some((turn) => turn.content.includes("lingix-memory")));
    // The same session again is not sent twice by the plugin.
    assert.equal(await api.hooks.get("session_end")({ sessionId: "node-distill-1", sessionFile: file, messageCount: 2 }, { agentId: "main" }), undefined);
  });
});
