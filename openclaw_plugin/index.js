// Lingix Memory for OpenClaw: seven tools over the Lingix agent API, auto-recall before
// each prompt, auto-capture of what the user stated, and a reachability check on /new.

import { LingixClient } from "./lib/client.js";
import { resolveConfig } from "./lib/config.js";
import { buildHooks } from "./lib/hooks.js";
import { buildTools } from "./lib/tools.js";

export const TOOL_NAMES = [
  "lingix_memory_search",
  "lingix_memory_ingest",
  "lingix_memory_trigger",
  "lingix_memory_status",
  "lingix_memory_reflect",
  "lingix_memory_review",
  "lingix_memory_suggestions",
];

const plugin = {
  id: "lingix-memory",
  name: "Lingix Memory",
  description: "Governed long-term memory for advertising agents (search, propose, review, reflect; auto-recall and auto-capture).",
  register(api) {
    const config = resolveConfig(api.pluginConfig || {});
    const logger = api.logger || console;
    const client = new LingixClient(config);

    for (const tool of buildTools({ client, config })) {
      api.registerTool(tool);
    }

    const hooks = buildHooks({ client, config, logger });
    api.on("before_prompt_build", (event) => hooks.recall(event), { timeoutMs: config.timeoutMs + 500 });
    api.on("agent_end", (event, ctx) => hooks.capture(event, ctx), { timeoutMs: config.timeoutMs + 500 });
    api.registerHook("command:new", (event) => hooks.onNewSession(event), {
      name: "lingix-memory-new-session",
      description: "Check that Lingix memory is reachable when a session starts",
    });

    if (!config.apiKey) {
      logger.warn?.("lingix-memory: no apiKey configured; tools will answer with a configuration error");
    }
  },
};

export default plugin;
