// Which advertiser a conversation belongs to. An agent serving several brands must never
// recall one brand's memories into another's chat, nor file what one client said under
// another: when no rule and no fallback applies, the answer is "none", and the hooks skip
// the turn instead of letting the token's scope pick an advertiser.

// The identity of a turn as the host describes it: agent id, channel and sender.
export function conversationOf(ctx = {}) {
  const sender = ctx.senderId || ctx.requesterSenderId || ctx.channelContext?.sender?.id;
  const channel = ctx.channelId || ctx.channel || ctx.messageChannel || ctx.messageProvider;
  return {
    agent: ctx.agentId ? String(ctx.agentId) : undefined,
    channel: channel ? String(channel) : undefined,
    sender: sender ? String(sender) : undefined,
  };
}

function specificity(rule) {
  // sender beats channel beats agent, so a per-client rule overrides a per-agent one
  return (rule.sender ? 4 : 0) + (rule.channel ? 2 : 0) + (rule.agent ? 1 : 0);
}

// {advertiser, via} where via names what decided it ("rule", "fallback"), or
// {advertiser: undefined, via: "none"}.
export function resolveAdvertiser(config, ctx = {}) {
  const who = conversationOf(ctx);
  const matching = (config.advertisers || []).filter((rule) =>
    ["agent", "channel", "sender"].every((key) => rule[key] === undefined || rule[key] === who[key]),
  );
  if (matching.length) {
    const best = matching.reduce((a, b) => (specificity(b) > specificity(a) ? b : a));
    return { advertiser: best.advertiser, via: "rule", rule: best };
  }
  if (config.advertiser) return { advertiser: config.advertiser, via: "fallback" };
  return { advertiser: undefined, via: "none" };
}

export function describeConversation(ctx = {}) {
  const who = conversationOf(ctx);
  return Object.entries(who)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ") || "no agent, channel or sender";
}
