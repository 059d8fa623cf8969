// Captures and distillations that could not be delivered wait here and are sent again with
// exponential backoff, so a memory server that is restarting or briefly down costs a
// delay, not the user's words. The queue lives in a JSON file (written to a temporary
// file, then renamed) so that a gateway restart does not lose it either. Every job carries
// an idempotency key or a session id, so sending one twice is answered by a replay.

import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { isRetryable } from "./client.js";
import { LEGACY_PLUGIN_ID, PLUGIN_ID } from "./manifest.js";

export const QUEUE_FILE = "retry-queue.json";
const MAX_JOBS = 500;
const MAX_DEAD = 50;

// Delay before attempt `attempts + 1`: base · 2^(attempts-1), capped, with ±20% jitter so
// that many gateways coming back at once do not knock the server over together.
export function backoffMs(attempts, { baseMs, maxMs }, random = Math.random) {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  const jitter = 0.8 + 0.4 * random();
  return Math.round(Math.min(maxMs, exp * jitter));
}

/** @typedef {{info?: (msg: string) => void, warn?: (msg: string) => void, error?: (msg: string) => void, debug?: (msg: string) => void}} Logger */

export class RetryQueue {
  // send(job) delivers one job (throws a LingixError on failure).
  /**
   * @param {{send?: (job: Record<string, any>) => Promise<unknown>, baseMs?: number, maxMs?: number, maxAttempts?: number,
   *   logger?: Logger, now?: () => number, random?: () => number}} [options]
   */
  constructor({ send, baseMs = 2000, maxMs = 300000, maxAttempts = 8, logger = console, now = () => Date.now(), random = Math.random } = {}) {
    this.send = send;
    this.policy = { baseMs, maxMs };
    this.maxAttempts = maxAttempts;
    this.log = logger;
    this.now = now;
    this.random = random;
    this.jobs = [];
    this.dead = [];
    this.file = undefined;
    this.timer = undefined;
    this.draining = undefined;
  }

  // Where the queue is kept; jobs queued before this point are written there now.
  attach(dir) {
    this.file = join(dir, QUEUE_FILE);
    try {
      const saved = JSON.parse(readFileSync(this.file, "utf8"));
      const known = new Set(this.jobs.map((j) => j.id));
      this.jobs.push(...(saved.jobs || []).filter((j) => j && j.id && !known.has(j.id)));
      this.dead = (saved.dead || []).slice(-MAX_DEAD);
    } catch (err) {
      if (err.code !== "ENOENT") this.log.warn?.(`${PLUGIN_ID}: retry queue ${this.file} unreadable, starting empty: ${err.message}`);
    }
    this.save();
    return this;
  }

  save() {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, jobs: this.jobs, dead: this.dead }, null, 1));
    renameSync(tmp, this.file);
  }

  get size() {
    return this.jobs.length;
  }

  // A job that just failed once: its first retry is one backoff step away.
  enqueue(kind, body, error) {
    const job = { id: randomUUID(), kind, body, attempts: 1, queuedAt: this.now(), lastError: String(error?.message || error || "") };
    job.nextAt = this.now() + backoffMs(1, this.policy, this.random);
    this.jobs.push(job);
    // Retries run even if the host never starts the service (the file then waits for it).
    this.start();
    if (this.jobs.length > MAX_JOBS) {
      const dropped = this.jobs.shift();
      this.bury(dropped, "the retry queue is full");
    }
    this.save();
    this.log.warn?.(`${PLUGIN_ID}: ${kind} queued for retry (${this.jobs.length} waiting): ${job.lastError}`);
    return job;
  }

  bury(job, why) {
    this.dead.push({ ...job, gaveUpAt: this.now(), why });
    this.dead = this.dead.slice(-MAX_DEAD);
    this.log.warn?.(`${PLUGIN_ID}: gave up on ${job.kind} after ${job.attempts} attempts: ${why}`);
  }

  // Sends every job that is due, one at a time; the first unreachable answer stops the
  // round (the server is down, the rest would fail the same way).
  async drain() {
    if (this.draining) return this.draining;
    this.draining = (async () => {
      let delivered = 0;
      for (const job of [...this.jobs]) {
        if (job.nextAt > this.now()) continue;
        try {
          await this.send(job);
          this.jobs = this.jobs.filter((j) => j.id !== job.id);
          delivered += 1;
          this.log.info?.(`${PLUGIN_ID}: delivered queued ${job.kind} after ${job.attempts + 1} attempts`);
        } catch (err) {
          job.attempts += 1;
          job.lastError = String(err?.message || err);
          if (!isRetryable(err)) {
            this.jobs = this.jobs.filter((j) => j.id !== job.id);
            this.bury(job, `refused: ${job.lastError}`);
          } else if (job.attempts >= this.maxAttempts) {
            this.jobs = this.jobs.filter((j) => j.id !== job.id);
            this.bury(job, job.lastError);
          } else {
            job.nextAt = this.now() + backoffMs(job.attempts, this.policy, this.random);
            if (["unreachable", "timeout"].includes(err.code)) break;
          }
        } finally {
          this.save();
        }
      }
      return delivered;
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  start(intervalMs = Math.min(1000, this.policy.baseMs)) {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.drain().catch((err) => this.log.warn?.(`${PLUGIN_ID}: retry round failed: ${err.message}`));
    }, intervalMs);
    this.timer.unref?.();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.draining) await this.draining.catch(() => undefined);
    this.save();
  }
}

// OpenClaw may call register() more than once in one process (the gateway's registry and a
// per-run tool registry, for example); hooks of one registration and the service of
// another must still share one queue, so queues are kept per server and token.
const SHARED = Symbol.for(`${PLUGIN_ID}.retry-queues`);

export function sharedQueue(config, options) {
  globalThis[SHARED] ??= new Map();
  const key = createHash("sha256").update(`${config.baseUrl}\n${config.apiKey}`).digest("hex");
  let queue = globalThis[SHARED].get(key);
  if (!queue) {
    queue = new RetryQueue(options);
    globalThis[SHARED].set(key, queue);
  } else {
    // the newest registration's deliverer, logger and policy win
    Object.assign(queue, { send: options.send, log: options.logger || queue.log, maxAttempts: options.maxAttempts ?? queue.maxAttempts });
    queue.policy = { baseMs: options.baseMs ?? queue.policy.baseMs, maxMs: options.maxMs ?? queue.policy.maxMs };
  }
  return queue;
}

// Before the plugin id became lingix-agent-memory the queue lived under
// <stateDir>/lingix-memory/. A file left there by the old id is moved to the new place
// once, so captures that were waiting when the plugin was renamed are still delivered.
export function adoptLegacyQueue(stateDir, logger) {
  const current = join(stateDir, PLUGIN_ID, QUEUE_FILE);
  const legacy = join(stateDir, LEGACY_PLUGIN_ID, QUEUE_FILE);
  if (existsSync(current) || !existsSync(legacy)) return false;
  try {
    mkdirSync(dirname(current), { recursive: true });
    renameSync(legacy, current);
    logger?.info?.(`${PLUGIN_ID}: moved the retry queue from ${legacy} (the plugin's former id) to ${current}`);
    return true;
  } catch (err) {
    logger?.warn?.(`${PLUGIN_ID}: could not move the retry queue from ${legacy}: ${err.message}`);
    return false;
  }
}

// The registered service: OpenClaw starts it with a state directory of its own and stops
// it on shutdown; the queue keeps its file under <stateDir>/lingix-agent-memory/.
export function retryService(queue) {
  return {
    id: `${PLUGIN_ID}-retry-queue`,
    start(ctx) {
      if (!queue.file) {
        const stateDir = ctx?.stateDir || process.cwd();
        adoptLegacyQueue(stateDir, ctx?.logger || queue.log);
        queue.attach(join(stateDir, PLUGIN_ID));
      }
      queue.start();
      if (queue.size) ctx?.logger?.info?.(`${PLUGIN_ID}: ${queue.size} queued captures waiting for delivery`);
    },
    async stop() {
      await queue.stop();
    },
  };
}
