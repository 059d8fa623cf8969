// Seed 000's plugin config (test/fixtures/seed-000-openclaw.json, copied from the seed's
// "OpenClaw 配置" example) is accepted by both manifests' schema and by the plugin, with
// each key mapped: recallTopK to the recall's top_k, the rest to a notice naming the
// server-side setting that replaces it. A key no setting reads is refused with a message
// naming the key and its replacement.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import { after, before, describe, test } from "node:test";

import supplementPlugin from "../index.js";
import { ConfigError, resolveConfig } from "../lib/config.js";
import { PLUGIN_ID, SEED_KEYS } from "../lib/manifest.js";
import slotPlugin from "../slot/index.js";
import { recordingApi } from "./fake-api.js";
import { schemaErrors } from "./json-schema.js";

const readJson = (rel) => JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8"));
const seed = readJson("./fixtures/seed-000-openclaw.json");
const manifests = { supplement: readJson("../openclaw.plugin.json"), slot: readJson("../slot/openclaw.plugin.json") };

// Where each seed key's notice must point.
const REPLACEMENTS = {
  pythonCommand: /`baseUrl`/,
  dataDir: /DATABASE_URL/,
  autoSeed: /memory import/,
  judge: /MEMORY_LLM_BASE_URL.*MEMORY_JUDGE_MODEL/,
  embedding: /MEMORY_EMBEDDING_MODEL/,
};

describe("seed 000's plugin config", () => {
  const entry = seed.plugins.entries[PLUGIN_ID];
  let server;
  let baseUrl;
  const requests = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        requests.push({ method: req.method, url: req.url, body: body ? JSON.parse(body) : undefined });
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ context: "<lingix-memory>\n- [L1 · brand_A · #1] 出价不超过2元\n</lingix-memory>", memories: [], tokens: 20, retrieved: true }));
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test("is keyed by this plugin's id", () => {
    assert.equal(PLUGIN_ID, "lingix-agent-memory");
    assert.deepEqual(Object.keys(seed.plugins.entries), [PLUGIN_ID]);
    assert.equal(entry.enabled, true);
  });

  test("validates against the configSchema of both manifests", () => {
    for (const [mode, manifest] of Object.entries(manifests)) {
      assert.deepEqual(schemaErrors(manifest.configSchema, entry.config), [], mode);
      // and with the keys this plugin needs added next to the seed's
      assert.deepEqual(schemaErrors(manifest.configSchema, { ...entry.config, baseUrl, apiKey: "${LINGIX_API_KEY}", advertiser: "brand_A" }), [], mode);
    }
  });

  test("is accepted and mapped: recallTopK is the recall's top_k, every other key names its replacement", () => {
    const config = resolveConfig(entry.config, {});
    assert.equal(config.recallTopK, 4);
    assert.deepEqual(config.notices.map((n) => n.key).sort(), Object.keys(SEED_KEYS).sort());
    assert.deepEqual(Object.keys(REPLACEMENTS).sort(), Object.keys(SEED_KEYS).sort());
    for (const { key, message } of config.notices) {
      assert.match(message, new RegExp(`"${key}"`), message);
      assert.match(message, REPLACEMENTS[key], message);
    }
    // the plugin's own settings keep their defaults
    assert.equal(config.baseUrl, "http://127.0.0.1:8000");
    assert.equal(config.recallBudgetTokens, 600);
    assert.equal(config.autoRecall, true);
  });

  test("a seed key that asks for nothing (disabled overrides, autoSeed false) raises no notice", () => {
    const config = resolveConfig({ autoSeed: false, judge: { enabled: false, model: "x" }, embedding: { model: "y" } }, {});
    assert.deepEqual(config.notices, []);
    assert.equal(config.recallTopK, 8, "the schema's default, which is also the server's");
  });

  test("both modes register with it, log each notice once, and auto-recall asks for recallTopK memories", async () => {
    for (const plugin of [supplementPlugin, slotPlugin]) {
      const api = recordingApi({ ...entry.config, baseUrl, apiKey: "lgx_seed", advertiser: "brand_A" }, { kind: plugin.kind });
      plugin.register(api);
      const warned = api.logs.filter(([level]) => level === "warn").map(([, msg]) => msg);
      for (const key of Object.keys(SEED_KEYS)) {
        assert.equal(warned.filter((msg) => msg.includes(`"${key}"`)).length, 1, `${key}: ${JSON.stringify(warned)}`);
      }
      assert.ok(warned.every((msg) => msg.startsWith(`${PLUGIN_ID}: `)), JSON.stringify(warned));
      requests.length = 0;
      const out = await api.hooks.get("before_prompt_build")({ currentUserMessage: "之前 brand_A 的出价上限是多少？" }, { agentId: "main" });
      assert.ok(out?.prependContext?.startsWith("<lingix-memory>"), JSON.stringify(out));
      assert.equal(requests.length, 1);
      assert.equal(requests[0].url, "/api/v1/recall");
      assert.equal(requests[0].body.top_k, 4);
      assert.equal(requests[0].body.budget_tokens, 600);
    }
  });
});

describe("a key this plugin does not read", () => {
  const refused = (config) => {
    try {
      resolveConfig(config, {});
    } catch (err) {
      assert.ok(err instanceof ConfigError, String(err));
      return err.message;
    }
    assert.fail(`accepted ${JSON.stringify(config)}`);
  };

  test("an LLM key inside judge/embedding is refused, naming the server's MEMORY_LLM_API_KEY", () => {
    const config = { judge: { enabled: true, model: "gpt-4o-mini", apiKey: "sk-secret" } };
    const message = refused(config);
    assert.match(message, new RegExp(`^${PLUGIN_ID}: invalid config: "judge.apiKey" is not a setting of this plugin`));
    assert.match(message, /`MEMORY_LLM_API_KEY` in the Lingix server's environment/);
    assert.doesNotMatch(message, /sk-secret/, "the value is never echoed");
    assert.match(refused({ embedding: { apiKey: "sk-secret" } }), /"embedding\.apiKey".*MEMORY_LLM_API_KEY/);
    assert.deepEqual(schemaErrors(manifests.supplement.configSchema, config), ['judge: must not have additional properties: "apiKey"']);
  });

  test("the entry's own keys written inside config are refused, naming where they go", () => {
    assert.match(refused({ hooks: { allowConversationAccess: true } }), /`hooks` belongs next to `config`, not inside it: plugins\.entries\.lingix-agent-memory\.hooks\.allowConversationAccess/);
    assert.match(refused({ enabled: true }), /plugins\.entries\.lingix-agent-memory\.enabled/);
  });

  test("a misspelt key names the setting it resembles; an unknown one lists the settings", () => {
    assert.match(refused({ recallTopk: 4 }), /"recallTopk" is not a setting of this plugin; did you mean "recallTopK"\?/);
    assert.match(refused({ judge: { modle: "x" } }), /"judge\.modle".*did you mean "judge\.model"\?/);
    const message = refused({ vectorStore: "lancedb" });
    assert.match(message, /"vectorStore" is not a setting of this plugin \(settings: baseUrl, apiKey, .*recallTopK.*\)/);
    assert.deepEqual(schemaErrors(manifests.slot.configSchema, { vectorStore: "lancedb" }), ['<root>: must not have additional properties: "vectorStore"']);
  });

  test("register refuses such a config with the same message", () => {
    const api = recordingApi({ baseUrl: "http://127.0.0.1:9", apiKey: "x", judge: { apiKey: "sk-secret" } });
    assert.throws(() => supplementPlugin.register(api), (err) => err instanceof ConfigError && /MEMORY_LLM_API_KEY/.test(err.message));
  });
});
