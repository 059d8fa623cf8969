// Resolved plugin settings. OpenClaw substitutes ${VAR} in config strings before the
// plugin sees them; the same substitution is applied here so that a config loaded by
// another host (or an unexpanded literal) still reads the environment.
//
// Defaults and ranges are the manifest's (lib/manifest.js CONFIG_SCHEMA). Seed 000's keys
// are accepted: `recallTopK` is applied, the others are reported as notices naming what
// replaces them. A key that is neither is refused with a ConfigError that names the key
// and, when one is known, its replacement. OpenClaw refuses such a config before the
// plugin loads (the schema's additionalProperties: false); this check is for hosts that
// pass the config on without validating it, and it says what to write instead.

import { CONFIG_SCHEMA, PLUGIN_ID, SEED_KEYS } from "./manifest.js";

/** @type {Record<string, any>} */
const PROPS = CONFIG_SCHEMA.properties;

/** @type {Readonly<Record<string, any>>} */
export const DEFAULTS = Object.freeze(
  Object.fromEntries(
    Object.entries(PROPS)
      .filter(([, p]) => "default" in p)
      .map(([key, p]) => [key, p.default]),
  ),
);

const ENTRY = `plugins.entries.${PLUGIN_ID}`;
const SERVER_KEY = "API keys are never read from the plugin config: the judge's and the embedder's key is `MEMORY_LLM_API_KEY` in the Lingix server's environment, and this plugin's own `apiKey` is a Lingix token";

// Keys that are easy to write inside `config` but are not settings here, with what to
// write instead: the entry's own keys, and the LLM key seed 000 already kept out of its
// config.
/** @type {Record<string, string>} */
export const REPLACED_KEYS = {
  hooks: `\`hooks\` belongs next to \`config\`, not inside it: ${ENTRY}.hooks.allowConversationAccess`,
  enabled: `\`enabled\` belongs next to \`config\`, not inside it: ${ENTRY}.enabled`,
  "judge.apiKey": SERVER_KEY,
  "embedding.apiKey": SERVER_KEY,
};

export class ConfigError extends Error {
  /** @param {string[]} problems */
  constructor(problems) {
    super(`${PLUGIN_ID}: invalid config: ${problems.join("; ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** @param {unknown} value @param {Record<string, string | undefined>} env */
function expandEnv(value, env) {
  if (typeof value !== "string") return value;
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name) => env[name] ?? "");
}

/** @param {unknown} value @param {number} fallback @param {number} min @param {number} max */
function clampInt(value, fallback, min, max) {
  const n = Number.parseInt(String(value), 10);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}

/** An integer setting clamped to the manifest's range, with the manifest's default. */
function intSetting(cfg, key) {
  const p = PROPS[key];
  return clampInt(cfg[key], p.default, p.minimum, p.maximum);
}

function flag(value, fallback) {
  return value === undefined ? fallback : Boolean(value);
}

// Levenshtein distance, for "did you mean" on a mistyped key.
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function closest(key, known) {
  const norm = (s) => s.toLowerCase().replace(/[-_]/g, "");
  let best;
  for (const name of known) {
    const d = norm(key) === norm(name) ? 0 : distance(norm(key), norm(name));
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function unknownKey(path, known) {
  const replaced = REPLACED_KEYS[path];
  if (replaced) return `"${path}" is not a setting of this plugin: ${replaced}`;
  const leaf = path.split(".").pop();
  const guess = closest(leaf, known);
  return guess
    ? `"${path}" is not a setting of this plugin; did you mean "${path.replace(/[^.]+$/, guess)}"?`
    : `"${path}" is not a setting of this plugin (settings: ${known.join(", ")})`;
}

/**
 * What is wrong with a raw config (keys no setting reads), and what it asks for that this
 * plugin leaves to the server (seed 000's keys).
 * @param {Record<string, any>} cfg
 * @returns {{problems: string[], notices: {key: string, message: string}[]}}
 */
export function checkConfig(cfg) {
  const problems = [];
  const notices = [];
  const known = Object.keys(PROPS);
  for (const key of Object.keys(cfg)) {
    if (!Object.hasOwn(PROPS, key)) problems.push(unknownKey(key, known));
  }
  for (const [key, { schema }] of Object.entries(SEED_KEYS)) {
    const value = cfg[key];
    if (value === undefined || value === null) continue;
    if (schema.type === "object") {
      if (typeof value !== "object" || Array.isArray(value)) continue;
      const fields = Object.keys(schema.properties);
      for (const field of Object.keys(value)) {
        if (!fields.includes(field)) problems.push(unknownKey(`${key}.${field}`, fields));
      }
      // seed 000: the overrides take effect only with enabled: true
      if (value.enabled !== true) continue;
    } else if (value === false || value === "") {
      continue;
    }
    notices.push({ key, message: `config key "${key}" (seed 000) is accepted but not applied: ${SEED_KEYS[key].replacement}` });
  }
  return { problems, notices };
}

const RULE_KEYS = ["agent", "channel", "sender"];

// `advertisers` rules: [{agent?, channel?, sender?, advertiser}]. Every key a rule names
// must match; a rule naming nothing is ignored (that is what `advertiser` is for).
function resolveRules(raw, env) {
  if (!Array.isArray(raw)) return [];
  const rules = [];
  for (const entry of raw) {
    if (!entry || typeof entry !== "object") continue;
    const advertiser = String(expandEnv(entry.advertiser, env) || "").trim();
    const match = {};
    for (const key of RULE_KEYS) {
      if (entry[key] !== undefined && entry[key] !== null && String(entry[key]).trim()) match[key] = String(entry[key]).trim();
    }
    if (advertiser && Object.keys(match).length) rules.push({ ...match, advertiser });
  }
  return rules;
}

/**
 * @typedef {object} ResolvedConfig
 * @property {string} baseUrl
 * @property {string} apiKey
 * @property {string | undefined} advertiser
 * @property {{agent?: string, channel?: string, sender?: string, advertiser: string}[]} advertisers
 * @property {boolean} autoRecall
 * @property {boolean} autoCapture
 * @property {boolean} distillOnSessionEnd
 * @property {number} recallBudgetTokens
 * @property {number} recallTopK
 * @property {number} timeoutMs
 * @property {number} retryMaxAttempts
 * @property {number} retryBaseMs
 * @property {number} retryMaxMs
 * @property {{key: string, message: string}[]} notices seed 000 keys this plugin leaves to the server
 */

/**
 * @param {Record<string, any>} [raw] the plugin's config (plugins.entries.<id>.config)
 * @param {Record<string, string | undefined>} [env]
 * @returns {ResolvedConfig}
 * @throws {ConfigError} on a key no setting reads
 */
export function resolveConfig(raw = {}, env = process.env) {
  /** @type {Record<string, any>} */
  const cfg = raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
  const { problems, notices } = checkConfig(cfg);
  if (problems.length) throw new ConfigError(problems);
  const baseUrl = String(expandEnv(cfg.baseUrl, env) || env.LINGIX_BASE_URL || DEFAULTS.baseUrl).replace(/\/+$/, "");
  const apiKey = String(expandEnv(cfg.apiKey, env) || env.LINGIX_API_KEY || "").trim();
  const advertiser = String(expandEnv(cfg.advertiser, env) || "").trim() || undefined;
  const retryBaseMs = intSetting(cfg, "retryBaseMs");
  return {
    baseUrl,
    apiKey,
    advertiser,
    advertisers: resolveRules(cfg.advertisers, env),
    autoRecall: flag(cfg.autoRecall, DEFAULTS.autoRecall),
    autoCapture: flag(cfg.autoCapture, DEFAULTS.autoCapture),
    distillOnSessionEnd: flag(cfg.distillOnSessionEnd, DEFAULTS.distillOnSessionEnd),
    recallBudgetTokens: intSetting(cfg, "recallBudgetTokens"),
    recallTopK: intSetting(cfg, "recallTopK"),
    timeoutMs: intSetting(cfg, "timeoutMs"),
    retryMaxAttempts: intSetting(cfg, "retryMaxAttempts"),
    retryBaseMs,
    retryMaxMs: Math.max(retryBaseMs, intSetting(cfg, "retryMaxMs")),
    notices,
  };
}
