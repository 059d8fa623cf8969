// Whose words a turn carries. Only a person talking to the agent says something worth
// remembering as "the user said": a cron job's prompt, a heartbeat, another session's
// hand-off or a sub-agent's task is text the system wrote, and capturing it would let the
// system vouch for itself.

const MACHINE_TRIGGERS = new Set(["cron", "heartbeat", "memory", "overflow"]);
const MACHINE_KEY = /(^|:)(cron|heartbeat|subagent|sub-agent|acp)(:|$)/i;

// {capture: boolean, reason} from the hook context (OpenClaw's PluginHookAgentContext).
export function turnOrigin(ctx = {}) {
  const provenance = ctx.inputProvenance;
  if (provenance && typeof provenance === "object") {
    if (provenance.kind === "internal_system") return { capture: false, reason: "input written by the system (internal_system)" };
    if (provenance.kind === "inter_session") {
      const from = provenance.sourceRole === "subagent" ? "a sub-agent" : "another session";
      return { capture: false, reason: `input relayed from ${from} (inter_session)` };
    }
  }
  if (ctx.trigger && MACHINE_TRIGGERS.has(String(ctx.trigger))) return { capture: false, reason: `${ctx.trigger}-triggered run` };
  if (ctx.jobId) return { capture: false, reason: `scheduled job ${ctx.jobId}` };
  if (ctx.sessionKey && MACHINE_KEY.test(String(ctx.sessionKey))) return { capture: false, reason: `machine session ${ctx.sessionKey}` };
  if (provenance?.kind === "external_user") return { capture: true, reason: "external user" };
  // Absent provenance does not prove a human, but an interactive run with no machine
  // marker is the ordinary case (the CLI and older hosts send none).
  return { capture: true, reason: "interactive run" };
}
