// The plugin definition, in one of two modes (see memory-surface.js). OpenClaw 2026.9
// enables a plugin of kind "memory" only while it holds the memory slot, so the mode is
// fixed by which manifest is installed: openclaw_plugin/ (supplement, no kind, coexists
// with memory-core) or openclaw_plugin/slot/ (kind "memory", the same id, takes the slot).
// The id, names, descriptions and tool lists come from lib/manifest.js, the source both
// manifests are written from.

import { LingixClient } from "./client.js";
import { resolveConfig } from "./config.js";
import { buildHooks, deliverJob } from "./hooks.js";
import { modeInfo, MODES, PLUGIN_ID, SLOT_TOOL_NAMES, TOOL_NAMES } from "./manifest.js";
import { flushPlan, lingixCorpus, PERSISTENCE_TOOL, promptSection } from "./memory-surface.js";
import { slotToolFactories, sourceTool } from "./more-tools.js";
import { retryService, sharedQueue } from "./retry-queue.js";
import { buildTools } from "./tools.js";

export { MODES, PLUGIN_ID, SLOT_TOOL_NAMES, TOOL_NAMES };
export const DISTILL_TIMEOUT_MS = 30000;

/** @param {{mode?: import("./manifest.js").Mode}} [options] */
export function createPlugin({ mode = MODES.SUPPLEMENT } = {}) {
  const info = modeInfo(mode);
  const slot = mode === MODES.SLOT;
  return {
    id: PLUGIN_ID,
    name: info.name,
    description: info.description,
    ...(info.kind ? { kind: info.kind } : {}),
    register(api) {
      const logger = api.logger || console;
      // Throws on a key this plugin does not know (OpenClaw's schema check refuses it first).
      const config = resolveConfig(api.pluginConfig || {});
      for (const notice of config.notices) logger.warn?.(`${PLUGIN_ID}: ${notice.message}`);
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
        name: `${PLUGIN_ID}-new-session`,
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

      logger.info?.(`${PLUGIN_ID}: ${mode} mode; flush persists through ${PERSISTENCE_TOOL}; advertiser rules: ${config.advertisers.length}${config.advertiser ? `, fallback ${config.advertiser}` : ", no fallback"}`);
      if (!config.apiKey) {
        logger.warn?.(`${PLUGIN_ID}: no apiKey configured; tools will answer with a configuration error`);
      }
    },
  };
}
