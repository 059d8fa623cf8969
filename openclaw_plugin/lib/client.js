// A small HTTP client for the Lingix agent API. Every call is bounded by timeoutMs (and by
// the caller's abort signal), and every failure becomes a LingixError whose message reads
// well as a tool error: what failed, and what to do about it.

import { PLUGIN_ID } from "./manifest.js";

export class LingixError extends Error {
  constructor(message, { status = 0, code = "error", detail = undefined } = {}) {
    super(message);
    this.name = "LingixError";
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

const HINTS = {
  401: "check the plugin's apiKey (a token from `manage.py memory token create`, e.g. ${LINGIX_API_KEY})",
  403: "the token's scope does not cover this; use one of its advertisers",
  404: "not found (or outside the token's scope)",
  413: "the request is too large",
  422: "the request was refused as invalid",
  429: "rate limited; retry a little later",
  503: "the memory service is not ready",
};

function describeDetail(detail) {
  if (detail === undefined || detail === null) return "";
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    // ninja's 422: [{loc: [...], msg: "..."}]
    return detail
      .slice(0, 3)
      .map((d) => (d && typeof d === "object" ? `${(d.loc || []).filter((p) => p !== "body" && p !== "payload").join(".")}: ${d.msg}` : String(d)))
      .join("; ");
  }
  try {
    return JSON.stringify(detail).slice(0, 300);
  } catch {
    return String(detail);
  }
}

function anySignal(signals) {
  const live = signals.filter(Boolean);
  if (live.length === 1) return live[0];
  if (typeof AbortSignal.any === "function") return AbortSignal.any(live);
  const controller = new AbortController();
  for (const s of live) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

/** @typedef {{signal?: AbortSignal, timeoutMs?: number}} RequestOptions */

export class LingixClient {
  constructor(config, { fetchImpl = globalThis.fetch } = {}) {
    this.config = config;
    this.fetchImpl = fetchImpl;
  }

  /**
   * @param {string} method
   * @param {string} path under /api/v1
   * @param {unknown} [body] sent as JSON
   * @param {RequestOptions} [options]
   */
  async request(method, path, body = undefined, { signal, timeoutMs } = {}) {
    const { baseUrl, apiKey } = this.config;
    if (!apiKey) {
      throw new LingixError(`Lingix memory is not configured: set plugins.entries.${PLUGIN_ID}.config.apiKey (for example "\${LINGIX_API_KEY}")`, {
        code: "not_configured",
      });
    }
    const budget = timeoutMs ?? this.config.timeoutMs;
    const timeout = AbortSignal.timeout(budget);
    const url = `${baseUrl}/api/v1${path}`;
    let response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: {
          Authorization: `Bearer ${apiKey}`,
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: anySignal([timeout, signal]),
      });
    } catch (err) {
      if (timeout.aborted) {
        throw new LingixError(`Lingix memory did not answer within ${budget} ms (${method} ${path})`, { code: "timeout" });
      }
      if (signal?.aborted) {
        throw new LingixError(`Lingix memory call cancelled (${method} ${path})`, { code: "aborted" });
      }
      const cause = err?.cause?.code || err?.cause?.message || err?.message || String(err);
      throw new LingixError(`Lingix memory is unreachable at ${baseUrl} (${cause})`, { code: "unreachable" });
    }
    let payload;
    let text = "";
    try {
      text = await response.text();
      payload = text ? JSON.parse(text) : {};
    } catch (err) {
      if (timeout.aborted) {
        throw new LingixError(`Lingix memory did not answer within ${budget} ms (${method} ${path})`, { code: "timeout" });
      }
      payload = undefined;
    }
    if (!response.ok) {
      const detail = payload && typeof payload === "object" ? payload.detail : text.slice(0, 200);
      const said = describeDetail(detail);
      const hint = HINTS[response.status] || "the memory server failed";
      throw new LingixError(`Lingix memory ${method} ${path} failed with HTTP ${response.status}: ${said || hint}${said && HINTS[response.status] ? ` (${hint})` : ""}`, {
        status: response.status,
        code: "http_error",
        detail,
      });
    }
    if (payload === undefined) {
      throw new LingixError(`Lingix memory ${method} ${path} returned a body that is not JSON`, { status: response.status, code: "bad_response" });
    }
    return payload;
  }

  search(body, opts) {
    return this.request("POST", "/search", body, opts);
  }
  recall(body, opts) {
    return this.request("POST", "/recall", body, opts);
  }
  ingest(body, opts) {
    return this.request("POST", "/ingest", body, opts);
  }
  trigger(body, opts) {
    return this.request("POST", "/trigger", body, opts);
  }
  status(opts) {
    return this.request("GET", "/status", undefined, opts);
  }
  reflect(opts) {
    return this.request("POST", "/reflect", {}, opts);
  }
  reviewList(limit = 20, opts) {
    return this.request("GET", `/review?limit=${encodeURIComponent(limit)}`, undefined, opts);
  }
  suggestions(advertiser, limit = 20, opts) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (advertiser) query.set("advertiser", advertiser);
    return this.request("GET", `/suggestions?${query}`, undefined, opts);
  }
  reviewDecide(itemId, action, body, opts) {
    return this.request("POST", `/review/${encodeURIComponent(itemId)}/${action}`, body, opts);
  }
  memory(memoryId, opts) {
    return this.request("GET", `/memories/${encodeURIComponent(memoryId)}`, undefined, opts);
  }
  source(memoryId, opts) {
    return this.request("GET", `/memories/${encodeURIComponent(memoryId)}/source`, undefined, opts);
  }
  distill(body, opts) {
    return this.request("POST", "/distill", body, opts);
  }
}

// A failure worth trying again later: the server was down, slow, overloaded or restarting.
// A 4xx answer is final: the same request would be refused again.
// Checked by name, not instanceof: a host may load this module more than once, and an
// error thrown by one copy's client reaches another copy's queue.
export function isRetryable(err) {
  if (err?.name !== "LingixError") return false;
  if (["unreachable", "timeout"].includes(err.code)) return true;
  return err.code === "http_error" && (err.status >= 500 || err.status === 429 || err.status === 408);
}
