// Resolved plugin settings. OpenClaw substitutes ${VAR} in config strings before the
// plugin sees them; the same substitution is applied here so that a config loaded by
// another host (or an unexpanded literal) still reads the environment.

export const DEFAULTS = Object.freeze({
  baseUrl: "http://127.0.0.1:8000",
  autoRecall: true,
  autoCapture: true,
  distillOnSessionEnd: true,
  recallBudgetTokens: 600,
  timeoutMs: 3000,
  retryMaxAttempts: 8,
  retryBaseMs: 2000,
  retryMaxMs: 300000,
});

function expandEnv(value, env) {
  if (typeof value !== "string") return value;
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name) => env[name] ?? "");
}

function clampInt(value, fallback, min, max) {
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}

function flag(value, fallback) {
  return value === undefined ? fallback : Boolean(value);
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

export function resolveConfig(raw = {}, env = process.env) {
  const cfg = raw && typeof raw === "object" ? raw : {};
  const baseUrl = String(expandEnv(cfg.baseUrl, env) || env.LINGIX_BASE_URL || DEFAULTS.baseUrl).replace(/\/+$/, "");
  const apiKey = String(expandEnv(cfg.apiKey, env) || env.LINGIX_API_KEY || "").trim();
  const advertiser = String(expandEnv(cfg.advertiser, env) || "").trim() || undefined;
  const retryBaseMs = clampInt(cfg.retryBaseMs, DEFAULTS.retryBaseMs, 50, 600000);
  return {
    baseUrl,
    apiKey,
    advertiser,
    advertisers: resolveRules(cfg.advertisers, env),
    autoRecall: flag(cfg.autoRecall, DEFAULTS.autoRecall),
    autoCapture: flag(cfg.autoCapture, DEFAULTS.autoCapture),
    distillOnSessionEnd: flag(cfg.distillOnSessionEnd, DEFAULTS.distillOnSessionEnd),
    recallBudgetTokens: clampInt(cfg.recallBudgetTokens, DEFAULTS.recallBudgetTokens, 50, 4000),
    timeoutMs: clampInt(cfg.timeoutMs, DEFAULTS.timeoutMs, 100, 60000),
    retryMaxAttempts: clampInt(cfg.retryMaxAttempts, DEFAULTS.retryMaxAttempts, 1, 100),
    retryBaseMs,
    retryMaxMs: Math.max(retryBaseMs, clampInt(cfg.retryMaxMs, DEFAULTS.retryMaxMs, 50, 86400000)),
  };
}
