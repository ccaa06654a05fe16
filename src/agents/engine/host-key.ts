/**
 * What a host's session key says about the session, host-neutral: OpenClaw's keys are
 * `agent:<agentId>:<channel>:…` (e.g. agent:main:telegram:direct:42, agent:main:main). Used by
 * both shells that take OpenClaw keys (the OpenClaw plugin, core's embedded-run extension seam);
 * a key of another form names neither (the plugin's `openclaw:<sessionId>` fallback, pi's keys).
 */
export interface HostKeyParts {
  agentId: string | null;
  channel: string | null;
}

export function agentAndChannelOf(sessionKey: string): HostKeyParts {
  if (!sessionKey.startsWith("agent:")) return { agentId: null, channel: null };
  return {
    agentId: /^agent:([^:]+):/.exec(sessionKey)?.[1] ?? null,
    channel: sessionKey.split(":")[2] ?? null,
  };
}
