// Resolved plugin settings. OpenClaw substitutes ${VAR} in config strings before the
// plugin sees them; the same substitution is applied here so that a config loaded by
// another host (or an unexpanded literal) still reads the environment.

export const DEFAULTS = Object.freeze({
  baseUrl: "http://127.0.0.1:8000",
  autoRecall: true,
  autoCapture: true,
  recallBudgetTokens: 600,
  timeoutMs: 3000,
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

export function resolveConfig(raw = {}, env = process.env) {
  const cfg = raw && typeof raw === "object" ? raw : {};
  const baseUrl = String(expandEnv(cfg.baseUrl, env) || env.LINGIX_BASE_URL || DEFAULTS.baseUrl).replace(/\/+$/, "");
  const apiKey = String(expandEnv(cfg.apiKey, env) || env.LINGIX_API_KEY || "").trim();
  const advertiser = String(expandEnv(cfg.advertiser, env) || "").trim() || undefined;
  return {
    baseUrl,
    apiKey,
    advertiser,
    autoRecall: cfg.autoRecall === undefined ? DEFAULTS.autoRecall : Boolean(cfg.autoRecall),
    autoCapture: cfg.autoCapture === undefined ? DEFAULTS.autoCapture : Boolean(cfg.autoCapture),
    recallBudgetTokens: clampInt(cfg.recallBudgetTokens, DEFAULTS.recallBudgetTokens, 50, 4000),
    timeoutMs: clampInt(cfg.timeoutMs, DEFAULTS.timeoutMs, 100, 60000),
  };
}
