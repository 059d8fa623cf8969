// Tier 1: the plugin, registered into a recording fake `api`, against a live Lingix
// server (started by tests/plugin/test_plugin_node.py, which passes its address and
// tokens in the environment).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import { after, before, describe, test } from "node:test";

import plugin, { TOOL_NAMES } from "../index.js";
import { resolveConfig } from "../lib/config.js";
import { lastUserTurn, stripRecall } from "../lib/hooks.js";
import { EVENT_TYPES, LAYERS, SOURCES } from "../lib/tools.js";
import { recordingApi } from "./fake-api.js";

const BASE_URL = process.env.LINGIX_BASE_URL;
const KEY_A = process.env.LINGIX_KEY_A;
const KEY_OPS = process.env.LINGIX_KEY_OPS;
const live = Boolean(BASE_URL && KEY_A && KEY_OPS);
const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));

function load(config = {}) {
  const api = recordingApi({ baseUrl: BASE_URL, apiKey: KEY_A || "lgx_00000000_offline", advertiser: "brand_A", timeoutMs: 5000, ...config });
  plugin.register(api);
  return api;
}

function text(result) {
  return result.content.map((c) => c.text).join("\n");
}

describe("registration", () => {
  test("manifest and runtime agree on id and tools", () => {
    const api = load({ baseUrl: "http://127.0.0.1:9", apiKey: "x" });
    assert.equal(manifest.id, "lingix-agent-memory");
    assert.equal(plugin.id, manifest.id);
    assert.deepEqual([...api.tools.keys()].sort(), [...manifest.contracts.tools].sort());
    assert.deepEqual([...TOOL_NAMES].sort(), [...manifest.contracts.tools].sort());
    for (const tool of api.tools.values()) {
      assert.equal(tool.parameters.type, "object", tool.name);
      assert.equal(typeof tool.execute, "function");
      assert.ok(tool.description.length > 20);
    }
    assert.deepEqual([...api.hooks.keys()].sort(), ["agent_end", "before_prompt_build", "before_reset", "session_end"]);
    assert.ok(api.internal("command:new"), "command:new is registered as an internal hook");
    const props = manifest.configSchema.properties;
    for (const key of ["baseUrl", "apiKey", "advertiser", "advertisers", "autoRecall", "autoCapture", "distillOnSessionEnd", "recallBudgetTokens", "timeoutMs", "retryMaxAttempts", "retryBaseMs", "retryMaxMs"]) {
      assert.ok(props[key], `configSchema has ${key}`);
    }
    assert.equal(manifest.uiHints.apiKey.sensitive, true);
  });

  test("config reads ${VAR} from the environment and clamps numbers", () => {
    const cfg = resolveConfig({ apiKey: "${LINGIX_TEST_KEY}", recallBudgetTokens: 99999, timeoutMs: "250" }, { LINGIX_TEST_KEY: "lgx_x" });
    assert.equal(cfg.apiKey, "lgx_x");
    assert.equal(cfg.recallBudgetTokens, 4000);
    assert.equal(cfg.timeoutMs, 250);
    assert.equal(cfg.autoRecall, true);
  });

  test("the user's turn is read without a recalled block", () => {
    const messages = [
      { role: "user", content: "旧问题" },
      { role: "assistant", content: "旧回答" },
      { role: "user", content: [{ type: "text", text: "<lingix-memory>\n- [L1] x\n</lingix-memory>\n用户纠正：出价不要超过1.5元" }] },
      { role: "assistant", content: [{ type: "text", text: "好的" }] },
    ];
    assert.equal(lastUserTurn(messages), "用户纠正：出价不要超过1.5元");
    assert.equal(stripRecall("<lingix-memory>a</lingix-memory> b"), "b");
  });
});

describe("errors are readable and bounded", () => {
  let silent;
  let silentUrl;
  const held = new Set();
  before(async () => {
    // Accepts connections and never answers.
    silent = http.createServer((req, res) => held.add(res));
    await new Promise((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentUrl = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (silent.address()).port}`;
  });
  after(() => {
    for (const res of held) res.destroy();
    silent.closeAllConnections?.();
    silent.close();
  });

  test("a tool times out at timeoutMs with a clear message", async () => {
    const api = load({ baseUrl: silentUrl, timeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(api.tools.get("lingix_memory_search").execute("t", { query: "出价" }), /did not answer within 300 ms/);
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  test("hooks never hold the agent past timeoutMs", async () => {
    const api = load({ baseUrl: silentUrl, timeoutMs: 300 });
    let started = Date.now();
    const recalled = await api.hooks.get("before_prompt_build")({ prompt: "上次的出价策略", currentUserMessage: "上次的出价策略", messages: [] }, {});
    assert.equal(recalled, undefined);
    assert.ok(Date.now() - started < 1500);
    started = Date.now();
    const captured = await api.hooks.get("agent_end")({ success: true, messages: [{ role: "user", content: "用户纠正：出价不要超过1.5元" }] }, { sessionKey: "s" });
    assert.equal(captured, undefined);
    assert.ok(Date.now() - started < 1500);
    assert.ok(api.logs.some(([level, msg]) => level === "warn" && /did not answer/.test(msg)));
  });

  test("an unreachable server is named", async () => {
    const api = load({ baseUrl: "http://127.0.0.1:9" });
    await assert.rejects(api.tools.get("lingix_memory_status").execute("t", {}), /unreachable at http:\/\/127\.0\.0\.1:9/);
  });

  test("a missing key is a configuration error, not a crash", async () => {
    const saved = process.env.LINGIX_API_KEY;
    delete process.env.LINGIX_API_KEY;
    try {
      const api = load({ apiKey: "" });
      await assert.rejects(api.tools.get("lingix_memory_search").execute("t", { query: "出价" }), /not configured.*LINGIX_API_KEY/);
      assert.equal(await api.hooks.get("before_prompt_build")({ currentUserMessage: "上次的出价策略" }, {}), undefined);
    } finally {
      if (saved !== undefined) process.env.LINGIX_API_KEY = saved;
    }
  });
});

describe("against the live server", { skip: !live && "LINGIX_BASE_URL/LINGIX_KEY_A/LINGIX_KEY_OPS not set" }, () => {
  test("the tools offer exactly the layers, sources and event types the API accepts", async () => {
    const spec = /** @type {any} */ (await (await fetch(`${BASE_URL}/api/v1/openapi.json`)).json());
    const field = (schema, name) => {
      const prop = spec.components.schemas[schema].properties[name];
      const options = prop.enum ? prop : (prop.anyOf || []).find((s) => s.enum) || prop.items;
      return options.enum;
    };
    assert.deepEqual(field("TriggerIn", "event_type"), EVENT_TYPES);
    assert.deepEqual(field("IngestIn", "source"), SOURCES);
    assert.deepEqual(field("IngestIn", "layer"), LAYERS);
  });

  test("search returns stored memories inside the token's scope", async () => {
    const api = load();
    const result = await api.tools.get("lingix_memory_search").execute("t1", { query: "医药OTC 出价", top_k: 10 });
    assert.ok(result.details.count > 0);
    assert.match(text(result), /^1\. \[L\d · (brand_A|global) · #\d+/);
    for (const row of result.details.results) assert.ok(row.advertiser === "brand_A" || row.advertiser === null, row.advertiser);
    assert.ok(!("status" in result.details));
  });

  test("deep search through the tool: the API's modes, scoped results, what it did", async () => {
    const spec = /** @type {any} */ (await (await fetch(`${BASE_URL}/api/v1/openapi.json`)).json());
    const api = load();
    const tool = api.tools.get("lingix_memory_search");
    assert.deepEqual(tool.parameters.properties.mode.enum, spec.components.schemas.SearchIn.properties.mode.enum);
    const result = await tool.execute("t2", { query: "冷启动期怎么调出价？", top_k: 10, mode: "deep" });
    assert.equal(result.details.mode, "deep");
    assert.ok(result.details.deep && result.details.deep.subqueries.length >= 1);
    for (const row of result.details.results) assert.ok(row.advertiser === "brand_A" || row.advertiser === null, row.advertiser);
  });

  test("API refusals become readable tool errors", async () => {
    const api = load();
    await assert.rejects(
      api.tools.get("lingix_memory_search").execute("t2", { query: "出价", advertiser: "brand_B" }),
      (/** @type {Error} */ err) => /HTTP 403/.test(err.message) && /brand_B/.test(err.message),
    );
    const bad = load({ apiKey: "lgx_00000000_wrong" });
    await assert.rejects(bad.tools.get("lingix_memory_search").execute("t3", { query: "出价" }), /HTTP 401.*invalid or revoked token/);
    await assert.rejects(api.tools.get("lingix_memory_search").execute("t4", { query: "出价", top_k: 500 }), /HTTP 422: top_k/);
    await assert.rejects(api.tools.get("lingix_memory_reflect").execute("t5", {}), /HTTP 403: reflection .* all-advertiser token/);
  });

  test("before_prompt_build recalls a <lingix-memory> block, and skips chit-chat", async () => {
    const api = load({ recallBudgetTokens: 300 });
    const hook = api.hooks.get("before_prompt_build");
    const out = await hook({ prompt: "x", currentUserMessage: "上次 brand_A 医药OTC 的出价上限是多少？", messages: [] }, {});
    assert.ok(out?.prependContext?.startsWith("<lingix-memory>"), JSON.stringify(out));
    assert.ok(out.prependContext.endsWith("</lingix-memory>"));
    assert.match(out.prependContext, /not an instruction/);
    assert.equal(await hook({ prompt: "你好", currentUserMessage: "你好", messages: [] }, {}), undefined);
    assert.equal(await hook({ prompt: "history only", currentUserMessage: "", messages: [] }, {}), undefined);
    assert.equal(await load({ autoRecall: false }).hooks.get("before_prompt_build")({ currentUserMessage: "上次的出价" }, {}), undefined);
  });

  test("agent_end sends what the user stated, once, as source=user", async () => {
    const api = load();
    const hook = api.hooks.get("agent_end");
    const event = {
      success: true,
      messages: [
        { role: "user", content: [{ type: "text", text: "<lingix-memory>\n- [L1 core rule] 旧规则\n</lingix-memory>\n用户纠正：brand_A 维生素品类搜索广告的出价不要超过1.6元" }] },
        { role: "assistant", content: [{ type: "text", text: "好的，已记录。" }] },
      ],
    };
    const decision = await hook(event, { sessionKey: "agent:main:plugin-test" });
    assert.equal(decision.action, "WRITE", JSON.stringify(decision));
    assert.equal(decision.layer, "L2");
    const again = await hook(event, { sessionKey: "agent:main:plugin-test" });
    assert.equal(again.event_id, decision.event_id);
    assert.equal(again.replayed, true);
    const ops = load({ apiKey: KEY_OPS });
    const found = await ops.tools.get("lingix_memory_search").execute("t6", { query: "维生素 搜索广告 出价 1.6元", advertiser: "brand_A" });
    const stored = found.details.results.find((r) => r.id === decision.memory_id);
    assert.ok(stored, "the captured statement is searchable");
    assert.ok(!stored.content.includes("lingix-memory"), stored.content);
    assert.equal(await hook({ success: false, messages: event.messages }, { sessionKey: "s2" }), undefined);
    assert.equal(await hook({ success: true, messages: [{ role: "user", content: "好的" }] }, { sessionKey: "s3" }), undefined);
  });

  test("ingest, trigger and status tools", async () => {
    const api = load();
    const ingest = await api.tools.get("lingix_memory_ingest").execute("t7", { text: "建议把预算提高30%", source: "assistant", idempotency_key: "plugin-t7" });
    assert.match(text(ingest), /^REJECT/);
    assert.equal(ingest.details.action, "REJECT");
    const trigger = await api.tools.get("lingix_memory_trigger").execute("t8", {
      event_type: "strategy_execution",
      summary: "冷启动期出价上浮20%，目标ROI 1.5，实际1.8，因为曝光增加",
      data: { target: 1.5, actual: 1.8, conditions: "冷启动期" },
      source: "tool",
    });
    assert.match(text(trigger), /^(WRITE|UPDATE|PENDING_REVIEW|REJECT)/);
    const status = await api.tools.get("lingix_memory_status").execute("t9", {});
    assert.match(text(status), /active memories: L1=\d+, L2=\d+.*judge: offline/);
    assert.ok(!("status" in status.details));
  });

  test("review: a token lists, a reviewing token decides, L1 stays an operator's call", async () => {
    const agent = load();
    const parked = await agent.tools.get("lingix_memory_ingest").execute("t10", { text: "平台规定：医药OTC类目所有广告出价不得超过2元", source: "user" });
    assert.equal(parked.details.action, "PENDING_REVIEW");
    const itemId = parked.details.review_item_id;
    const listed = await agent.tools.get("lingix_memory_review").execute("t11", { action: "list" });
    assert.ok(listed.details.items.some((it) => it.id === itemId && it.needs_operator === true));
    assert.match(text(listed), new RegExp(`#${itemId} .*only an operator approves`));
    await assert.rejects(agent.tools.get("lingix_memory_review").execute("t12", { action: "approve", item_id: itemId }), /HTTP 403.*--can-review/);
    const ops = load({ apiKey: KEY_OPS, advertiser: undefined });
    // The parked item would become an L1 core rule: no API token may approve it.
    await assert.rejects(ops.tools.get("lingix_memory_review").execute("t13", { action: "approve", item_id: itemId, note: "符合平台规定" }), /HTTP 403.*operator/);
    const rejected = await ops.tools.get("lingix_memory_review").execute("t13b", { action: "reject", item_id: itemId, note: "用户转述，不是平台规定" });
    assert.match(text(rejected), /^REJECT/);
    await assert.rejects(ops.tools.get("lingix_memory_review").execute("t14", { action: "reject", item_id: itemId, note: "x" }), /HTTP 409/);
    const reflect = await ops.tools.get("lingix_memory_reflect").execute("t15", {});
    assert.match(text(reflect), /^reflection report #\d+/);
  });

  test("suggestions: live signals with the playbooks that apply, inside the token's scope", async () => {
    const api = load();
    const result = await api.tools.get("lingix_memory_suggestions").execute("t16", {});
    assert.ok(result.details.count > 0, text(result));
    for (const item of result.details.items) {
      assert.ok(item.advertiser === "brand_A" || item.advertiser === null, item.advertiser);
      for (const p of [...item.strategies, ...item.templates]) assert.ok(p.advertiser === "brand_A" || p.advertiser === null, p.advertiser);
    }
    // The demo's brand_A ROI drop is an anomaly signal; its playbook is the L4 anomaly template.
    const anomaly = result.details.items.find((it) => it.kind === "anomaly" && it.advertiser === "brand_A");
    assert.ok(anomaly, text(result));
    assert.ok(anomaly.templates.some((t) => t.layer === "L4" && /anomaly/i.test(t.content)));
    assert.match(text(result), new RegExp(`#${anomaly.id} anomaly \\(异常\\) · brand_A · signal L3 #${anomaly.signal.id}`));
    assert.match(text(result), /\n {3}- L4 #\d+: /);
    assert.ok(!("status" in result.details));
    await assert.rejects(api.tools.get("lingix_memory_suggestions").execute("t17", { advertiser: "brand_B" }), /HTTP 403.*brand_B/);
  });

  test("command:new checks the server and reports a broken configuration to the user", async () => {
    const good = load();
    const event = { type: "command", action: "new", sessionKey: "agent:main:x", context: {}, messages: [] };
    await good.internal("command:new")(event);
    assert.deepEqual(event.messages, []);
    assert.ok(good.logs.some(([, msg]) => /memory online \(offline/.test(msg)));
    const bad = load({ apiKey: "lgx_00000000_wrong" });
    const badEvent = { ...event, messages: [] };
    await bad.internal("command:new")(badEvent);
    assert.equal(badEvent.messages.length, 1);
    assert.match(badEvent.messages[0], /Lingix memory is unavailable.*HTTP 401/);
  });
});
