// The plugin definition, in one of two modes (see memory-surface.js). OpenClaw 2026.9
// enables a plugin of kind "memory" only while it holds the memory slot, so the mode is
// fixed by which manifest is installed: openclaw_plugin/ (supplement, no kind, coexists
// with memory-core) or openclaw_plugin/slot/ (kind "memory", the same id, takes the slot).

import { LingixClient } from "./client.js";
import { resolveConfig } from "./config.js";
import { buildHooks, deliverJob } from "./hooks.js";
import { flushPlan, lingixCorpus, PERSISTENCE_TOOL, promptSection } from "./memory-surface.js";
import { slotToolFactories, sourceTool } from "./more-tools.js";
import { retryService, sharedQueue } from "./retry-queue.js";
import { buildTools } from "./tools.js";

export const MODES = Object.freeze({ SUPPLEMENT: "supplement", SLOT: "slot" });

export const TOOL_NAMES = [
  "lingix_memory_search",
  "lingix_memory_ingest",
  "lingix_memory_trigger",
  "lingix_memory_status",
  "lingix_memory_reflect",
  "lingix_memory_review",
  "lingix_memory_source",
  "lingix_memory_suggestions",
];
export const SLOT_TOOL_NAMES = ["memory_search", "memory_get"];
export const DISTILL_TIMEOUT_MS = 30000;

export function createPlugin({ mode = MODES.SUPPLEMENT } = {}) {
  const slot = mode === MODES.SLOT;
  return {
    id: "lingix-memory",
    name: "Lingix Memory",
    description: slot
      ? "Governed long-term memory for advertising agents, as OpenClaw's memory (memory_search/memory_get, prompt, flush), with auto-recall, role-tagged capture and session distillation."
      : "Governed long-term memory for advertising agents beside OpenClaw's own memory (search, propose, review, reflect; auto-recall, role-tagged capture, session distillation).",
    ...(slot ? { kind: "memory" } : {}),
    register(api) {
      const config = resolveConfig(api.pluginConfig || {});
      const logger = api.logger || console;
      const client = new LingixClient(config);
      const queue = sharedQueue(config, {
        send: deliverJob(client, { distillTimeoutMs: Math.max(config.timeoutMs, DISTILL_TIMEOUT_MS) }),
        baseMs: config.retryBaseMs,
        maxMs: config.retryMaxMs,
        maxAttempts: config.retryMaxAttempts,
        logger,
      });

      for (const tool of [...buildTools({ client, config }), sourceTool({ client })]) {
        api.registerTool(tool);
      }

      const hooks = buildHooks({ client, config, logger, queue, distillTimeoutMs: Math.max(config.timeoutMs, DISTILL_TIMEOUT_MS) });
      const budget = { timeoutMs: config.timeoutMs + 500 };
      api.on("before_prompt_build", (event, ctx) => hooks.recall(event, ctx), budget);
      api.on("agent_end", (event, ctx) => hooks.capture(event, ctx), budget);
      api.on("session_end", (event, ctx) => hooks.onSessionEnd(event, ctx), budget);
      api.on("before_reset", (event, ctx) => hooks.onBeforeReset(event, ctx), budget);
      api.registerHook("command:new", (event) => hooks.onNewSession(event), {
        name: "lingix-memory-new-session",
        description: "Distil the session being replaced and check that Lingix memory is reachable",
      });
      api.registerService?.(retryService(queue));

      const corpus = lingixCorpus({ client, config, logger });
      if (slot) {
        api.registerMemoryCapability({
          promptBuilder: (params) => promptSection(params?.availableTools, ["memory_search", "lingix_memory_search"]),
          flushPlanResolver: (params) => flushPlan(params),
          runtime: {
            async getMemorySearchManager(params = {}) {
              return { manager: corpus.manager({ agentId: params.agentId }), debug: { backend: "builtin", purpose: params.purpose } };
            },
            resolveMemoryBackendConfig() {
              return { backend: "builtin" };
            },
          },
        });
        const factories = slotToolFactories({ corpus, config });
        for (const name of SLOT_TOOL_NAMES) api.registerTool(factories[name], { names: [name] });
      } else {
        api.registerMemoryCorpusSupplement?.(corpus.supplement);
        api.registerMemoryPromptSupplement?.((params) => promptSection(params?.availableTools, ["lingix_memory_search", "memory_search"]));
      }

      logger.info?.(`lingix-memory: ${mode} mode; flush persists through ${PERSISTENCE_TOOL}; advertiser rules: ${config.advertisers.length}${config.advertiser ? `, fallback ${config.advertiser}` : ", no fallback"}`);
      if (!config.apiKey) {
        logger.warn?.("lingix-memory: no apiKey configured; tools will answer with a configuration error");
      }
    },
  };
}
