// A recording stand-in for OpenClaw's plugin `api`: it keeps whatever the plugin
// registers so tests can call the tools and hooks the way the host would.
export function recordingApi(pluginConfig) {
  const api = {
    pluginConfig,
    tools: new Map(),
    hooks: new Map(),
    hookOptions: new Map(),
    internalHooks: [],
    logs: [],
    logger: {
      info: (msg) => api.logs.push(["info", msg]),
      warn: (msg) => api.logs.push(["warn", msg]),
      error: (msg) => api.logs.push(["error", msg]),
      debug: () => {},
    },
    registerTool(tool) {
      if (api.tools.has(tool.name)) throw new Error(`tool registered twice: ${tool.name}`);
      api.tools.set(tool.name, tool);
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
  };
  return api;
}
