// The one source of the plugin's identity, tool list and config schema. OpenClaw reads two
// static manifests, openclaw.plugin.json (supplement mode) and slot/openclaw.plugin.json
// (slot mode); both are written from here by `node scripts/manifests.js`, together with
// slot/package.json, and test/manifests.test.js fails when a file no longer matches.
// The runtime (lib/plugin.js, lib/config.js) reads the same objects, so the id, the tools
// and the setting ranges cannot drift between what OpenClaw validates and what runs.

export const PLUGIN_ID = "lingix-agent-memory";
// The id before seed 000's name was adopted; only the README's migration notes and the
// retry queue's one-time file move still name it.
export const LEGACY_PLUGIN_ID = "lingix-memory";
export const PLUGIN_NAME = "Lingix Memory";

/** @typedef {"supplement" | "slot"} Mode */
/** @type {Readonly<{SUPPLEMENT: "supplement", SLOT: "slot"}>} */
export const MODES = Object.freeze({ SUPPLEMENT: "supplement", SLOT: "slot" });

export const TOOL_NAMES = Object.freeze([
  "lingix_memory_search",
  "lingix_memory_ingest",
  "lingix_memory_trigger",
  "lingix_memory_status",
  "lingix_memory_reflect",
  "lingix_memory_review",
  "lingix_memory_source",
  "lingix_memory_suggestions",
]);
export const SLOT_TOOL_NAMES = Object.freeze(["memory_search", "memory_get"]);

// What differs between the two manifests (and the runtime entries): everything else is
// shared.
const MODE_SPECIFIC = {
  supplement: {
    name: PLUGIN_NAME,
    description:
      "Governed four-layer long-term memory for advertising agents: search, propose (ingest/trigger), review, reflect, drill down to the source turns; auto-recall before each prompt, role-tagged auto-capture with a retry queue, session distillation, and Lingix hits in memory-core's memory_search. Supplement mode: coexists with OpenClaw's memory.",
    tools: TOOL_NAMES,
  },
  slot: {
    name: `${PLUGIN_NAME} (memory slot)`,
    kind: "memory",
    description: `Lingix governed long-term memory as OpenClaw's memory: answers memory_search / memory_get, builds the memory prompt section and the pre-compaction flush (persisted through the governed ingest), plus the Lingix tools, auto-recall, role-tagged capture and session distillation. Set plugins.slots.memory to ${PLUGIN_ID}.`,
    tools: [...TOOL_NAMES, ...SLOT_TOOL_NAMES],
  },
};

/** @param {Mode} mode */
export function modeInfo(mode) {
  const info = MODE_SPECIFIC[mode];
  if (!info) throw new Error(`unknown plugin mode ${JSON.stringify(mode)}`);
  return info;
}

// Seed 000 (the Python-CLI plugin this one replaces) configured a local Python process.
// Its config JSON is accepted as it stands: `recallTopK` keeps its meaning, and every
// other key names what the server-side setup does instead. That text is both the key's
// schema description and the warning the plugin logs when the key asks for something.
export const SEED_KEYS = Object.freeze({
  pythonCommand: {
    schema: { type: "string" },
    replacement:
      "no Python process is started; the plugin calls the Lingix server at `baseUrl` (`make run` serves one), so set `baseUrl` and `apiKey` instead",
  },
  dataDir: {
    schema: { type: "string" },
    replacement:
      "memories are stored by the Lingix server, in the database named by `DATABASE_URL` in the server's environment (default data/lingix.db in its checkout)",
  },
  autoSeed: {
    schema: { type: "boolean" },
    replacement:
      "the Lingix server loads its demo data once on `make run`; load curated memories with `manage.py memory import FILE.jsonl` on the server",
  },
  judge: {
    schema: {
      type: "object",
      additionalProperties: false,
      properties: { enabled: { type: "boolean" }, baseUrl: { type: "string" }, model: { type: "string" } },
    },
    replacement:
      "the write funnel's judge runs on the Lingix server, configured by `MEMORY_LLM_BASE_URL` and `MEMORY_JUDGE_MODEL` (and the key, `MEMORY_LLM_API_KEY`) in its environment",
  },
  embedding: {
    schema: {
      type: "object",
      additionalProperties: false,
      properties: { enabled: { type: "boolean" }, baseUrl: { type: "string" }, model: { type: "string" } },
    },
    replacement:
      "embeddings are computed by the Lingix server, configured by `MEMORY_EMBEDDING_PROVIDER=openai`, `MEMORY_EMBEDDING_MODEL` and `MEMORY_EMBEDDING_BASE_URL` in its environment (its default is the bundled local embedder)",
  },
});

function seedProperty(key) {
  const { schema, replacement } = SEED_KEYS[key];
  return { ...schema, description: `Seed 000 key, accepted but not applied here: ${replacement}.` };
}

export const CONFIG_SCHEMA = Object.freeze({
  type: "object",
  additionalProperties: false,
  properties: {
    baseUrl: {
      type: "string",
      default: "http://127.0.0.1:8000",
      description: "Where the Lingix Memory server runs (its /api/v1/ is appended).",
    },
    apiKey: {
      type: "string",
      description: 'A token from `manage.py memory token create`. Write "${LINGIX_API_KEY}" to read it from the environment.',
    },
    advertiser: {
      type: "string",
      description:
        "Fallback advertiser when no `advertisers` rule matches the conversation (must be in the token's scope). With neither, auto-recall, capture and distillation are refused.",
    },
    advertisers: {
      type: "array",
      description:
        "Which advertiser a conversation belongs to: rules matched on the run's agent id, channel and sender (every key a rule names must match; the most specific match wins: sender, then channel, then agent).",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["advertiser"],
        properties: {
          agent: { type: "string" },
          channel: { type: "string" },
          sender: { type: "string" },
          advertiser: { type: "string" },
        },
      },
    },
    autoRecall: {
      type: "boolean",
      default: true,
      description: "Before each prompt, recall relevant memories into a <lingix-memory> block.",
    },
    autoCapture: {
      type: "boolean",
      default: true,
      description:
        "After each successful interactive turn, send the user's words (with the assistant reply they answer, role-tagged) to the write funnel. Cron, heartbeat and sub-agent turns are never captured.",
    },
    distillOnSessionEnd: {
      type: "boolean",
      default: true,
      description: "When a session ends, is reset or replaced by /new, send its transcript to POST /api/v1/distill.",
    },
    recallBudgetTokens: {
      type: "integer",
      minimum: 50,
      maximum: 4000,
      default: 600,
      description: "Token budget of the recalled block.",
    },
    recallTopK: {
      type: "integer",
      minimum: 1,
      maximum: 20,
      default: 8,
      description: "How many memories auto-recall ranks before fitting them into the budget (the recall's top_k; seed 000's key of the same name).",
    },
    timeoutMs: {
      type: "integer",
      minimum: 100,
      maximum: 60000,
      default: 3000,
      description: "Longest the plugin waits for the memory server on any call or hook.",
    },
    retryMaxAttempts: {
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 8,
      description: "How many times a capture or distillation that failed on a network or server error is sent before it is given up.",
    },
    retryBaseMs: {
      type: "integer",
      minimum: 50,
      maximum: 600000,
      default: 2000,
      description: "First retry delay; each later retry doubles it (with jitter).",
    },
    retryMaxMs: {
      type: "integer",
      minimum: 50,
      maximum: 86400000,
      default: 300000,
      description: "Longest delay between two retries.",
    },
    pythonCommand: seedProperty("pythonCommand"),
    dataDir: seedProperty("dataDir"),
    autoSeed: seedProperty("autoSeed"),
    judge: seedProperty("judge"),
    embedding: seedProperty("embedding"),
  },
});

export const UI_HINTS = Object.freeze({
  baseUrl: { label: "Lingix API base URL", placeholder: "http://127.0.0.1:8000" },
  apiKey: { label: "Lingix API token", placeholder: "${LINGIX_API_KEY}", sensitive: true },
  advertiser: { label: "Default advertiser", placeholder: "brand_A" },
  advertisers: { label: "Advertiser per agent / channel / sender" },
});

/**
 * The manifest OpenClaw reads for one mode.
 * @param {Mode} mode
 * @param {{version?: string}} pkg the root package.json (its version is the plugin's)
 */
export function buildManifest(mode, { version }) {
  const info = modeInfo(mode);
  return {
    id: PLUGIN_ID,
    name: info.name,
    ...(info.kind ? { kind: info.kind } : {}),
    description: info.description,
    version,
    activation: { onStartup: true },
    contracts: { tools: [...info.tools] },
    uiHints: UI_HINTS,
    configSchema: CONFIG_SCHEMA,
  };
}

/**
 * slot/package.json: the root package's identity, engines and peer range, with the slot
 * entry.
 * @param {Record<string, any>} root the root package.json
 */
export function buildSlotPackage(root) {
  return {
    name: `${root.name}-slot`,
    version: root.version,
    description: `${PLUGIN_NAME} as OpenClaw's memory slot (kind memory); the same plugin as the parent folder`,
    type: root.type,
    main: "./index.js",
    openclaw: { ...root.openclaw, extensions: ["./index.js"] },
    peerDependencies: root.peerDependencies,
    peerDependenciesMeta: root.peerDependenciesMeta,
    engines: root.engines,
    license: root.license,
    private: root.private,
  };
}

export function renderJson(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Every generated file, relative to openclaw_plugin/, with its text.
 * @param {Record<string, any>} root the root package.json
 * @returns {{path: string, text: string}[]}
 */
export function generatedFiles(root) {
  return [
    { path: "openclaw.plugin.json", text: renderJson(buildManifest(MODES.SUPPLEMENT, root)) },
    { path: "slot/openclaw.plugin.json", text: renderJson(buildManifest(MODES.SLOT, root)) },
    { path: "slot/package.json", text: renderJson(buildSlotPackage(root)) },
  ];
}
