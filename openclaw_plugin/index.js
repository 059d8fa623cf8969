// Lingix Memory for OpenClaw, supplement mode (the default): eight tools over the Lingix
// agent API, auto-recall before each prompt, role-tagged auto-capture with a retry queue,
// session distillation, and Lingix hits inside memory-core's own memory_search.
// openclaw_plugin/slot/ is the same plugin as OpenClaw's memory (kind "memory").

import { createPlugin, MODES, SLOT_TOOL_NAMES, TOOL_NAMES } from "./lib/plugin.js";

export { SLOT_TOOL_NAMES, TOOL_NAMES };

const plugin = createPlugin({ mode: MODES.SUPPLEMENT });

export default plugin;
