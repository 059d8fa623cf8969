// A recording stand-in for OpenClaw's plugin `api`: it keeps whatever the plugin
// registers so tests can call the tools and hooks the way the host would. Like the host,
// it refuses a memory capability from a plugin that is not of kind "memory".
/** @param {Record<string, any>} pluginConfig @param {{kind?: string | null}} [options] */
export function recordingApi(pluginConfig, { kind } = {}) {
  const api = {
    pluginConfig,
    tools: new Map(),
    toolFactories: new Map(),
    hooks: new Map(),
    hookOptions: new Map(),
    internalHooks: [],
    services: [],
    memoryCapability: undefined,
    corpusSupplements: [],
    promptSupplements: [],
    logs: [],
    logger: {
      info: (msg) => api.logs.push(["info", msg]),
      warn: (msg) => api.logs.push(["warn", msg]),
      error: (msg) => api.logs.push(["error", msg]),
      debug: () => {},
    },
    registerTool(tool, opts) {
      if (typeof tool === "function") {
        for (const name of opts?.names || []) {
          if (api.tools.has(name) || api.toolFactories.has(name)) throw new Error(`tool registered twice: ${name}`);
          api.toolFactories.set(name, tool);
        }
        return;
      }
      if (api.tools.has(tool.name)) throw new Error(`tool registered twice: ${tool.name}`);
      api.tools.set(tool.name, tool);
    },
    // The tool a run with this context would see (factories are called per run).
    tool(name, ctx = {}) {
      return api.tools.get(name) || api.toolFactories.get(name)?.(ctx);
    },
    toolNames() {
      return [...api.tools.keys(), ...api.toolFactories.keys()];
    },
    on(name, handler, opts) {
      api.hooks.set(name, handler);
      api.hookOptions.set(name, opts);
    },
    registerHook(events, handler, opts) {
      if (!opts?.name) throw new Error("hook registration missing name");
      api.internalHooks.push({ events: Array.isArray(events) ? events : [events], handler, opts });
    },
    internal(eventName) {
      return api.internalHooks.find((h) => h.events.includes(eventName))?.handler;
    },
    registerService(service) {
      if (!service?.id || typeof service.start !== "function") throw new Error("service needs an id and start()");
      api.services.push(service);
    },
    registerMemoryCapability(capability) {
      if (kind !== "memory") throw new Error("only memory plugins can register a memory capability");
      api.memoryCapability = capability;
    },
    registerMemoryCorpusSupplement(supplement) {
      api.corpusSupplements.push(supplement);
    },
    registerMemoryPromptSupplement(builder) {
      if (typeof builder !== "function") throw new Error("memory prompt supplement registration missing builder");
      api.promptSupplements.push(builder);
    },
  };
  return api;
}
