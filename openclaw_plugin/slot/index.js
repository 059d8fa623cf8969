// Lingix Memory as OpenClaw's memory (plugins.slots.memory = "lingix-agent-memory"): the same
// plugin as ../index.js, declared kind "memory", registering the memory capability and
// answering OpenClaw's memory_search / memory_get.

import { createPlugin, MODES, SLOT_TOOL_NAMES, TOOL_NAMES } from "../lib/plugin.js";

export { SLOT_TOOL_NAMES, TOOL_NAMES };

const plugin = createPlugin({ mode: MODES.SLOT });

export default plugin;
