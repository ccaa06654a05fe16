/**
 * OpenClaw's compaction provider (≥ 2026.9, `agents.defaults.compaction.provider: "context-manager"`):
 * the safeguard calls `summarize` instead of the model; the summary is the compaction checkpoint
 * rendered. A known session (identifySession, below) goes through the engine's slot (a checkpoint
 * compact() wrote moments before is reused); an unknown one is stored under PROVIDER_KEY_PREFIX.
 * Never throws or returns "" for messages (OpenClaw would call the model); an abort rejects.
 *
 * Which session a call is of (the safeguard passes only the messages): the `before_compaction` hint
 * whose messages hold the call's first and last conversation message, else the one recent hint
 * without messages (`openclaw sessions compact`, the overflow retry); two such are ambiguous and none
 * is taken (the wrong session's store is worse than none). Process-wide, at most MAX_HINTS, each used once.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { readLatestCheckpoint } from "../agents/checkpoint/files.js";
import { compactionOutcomeSince, markCompactionSummarized } from "../agents/engine/compaction.js";
import { renderCompactionSummary } from "../agents/inject/compaction-summary.js";
import { COMPACTION_SUMMARY_END, COMPACTION_SUMMARY_HEADER } from "../agents/inject/markers.js";
import { canonicalSessionKey, hostSessionKey } from "../infra/session-dir.js";
import { processServices } from "../infra/process-services.js";
import type { CompactionProviderShape, SummarizeParams } from "./engine-types.js";
import { heldSlot, keepSlot, SessionSlot, type SlotOptions, warnFailure } from "./session-slot.js";
import { CONVERSATION, markOf } from "./session-file.js";

export const COMPACTION_PROVIDER_ID = "context-manager";
/** the key an unidentified session's compaction checkpoint is stored under, with a hash of its first message */
export const PROVIDER_KEY_PREFIX = "openclaw-compaction:";

/** The safeguard keeps at least half of its 16,000 chars for the body: ≤ 8,000 chars is never cut for its suffix. */
const SAFEGUARD_BODY_TOKENS = 2_000;
/** the least a ratio may leave (the frame, the goal and the changed paths fit) */
const MIN_SUMMARY_TOKENS = 150;
/** a checkpoint the engine's compact() wrote this long before is this compaction's */
const SAME_COMPACTION_MS = 120_000;

const isMessage = (m: unknown): m is AgentMessage => typeof m === "object" && m !== null && typeof (m as { role?: unknown }).role === "string";

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error("compaction aborted"), { name: "AbortError" });
}

/** The summary budget: the configured one, within the safeguard's body share, times `compressionRatio` of the input when given. */
export function summaryBudget(configured: number, compressionRatio: unknown, messages: readonly AgentMessage[]): number {
  let tokens = Math.min(configured, SAFEGUARD_BODY_TOKENS);
  if (typeof compressionRatio === "number" && compressionRatio > 0 && compressionRatio < 1) {
    let n = 0;
    for (const m of messages) {
      const c = (m as { content?: unknown }).content;
      if (typeof c === "string") n += c.length;
      for (const p of Array.isArray(c) ? c : []) {
        const x = p as { text?: unknown; thinking?: unknown; arguments?: unknown };
        if (typeof x?.text === "string") n += x.text.length;
        else if (typeof x?.thinking === "string") n += x.thinking.length;
        else if (x?.arguments !== undefined) n += 64;
      }
    }
    tokens = Math.min(tokens, Math.max(MIN_SUMMARY_TOKENS, Math.floor((n / 4) * compressionRatio)));
  }
  return tokens;
}

/** What is returned when the render failed: never "" (OpenClaw would call the model). No captured text in it. */
export function fallbackSummary(count: number): string {
  return [
    COMPACTION_SUMMARY_HEADER,
    `${count} earlier message${count === 1 ? " was" : "s were"} compacted without a model call; their summary could not be rendered this time.`,
    "context_search finds anything from before this point.",
    COMPACTION_SUMMARY_END,
  ].join("\n");
}

function anonymousSession(messages: readonly AgentMessage[]): ProviderSession {
  const first = messages.find((m) => m.role === "user") ?? messages[0];
  const id = createHash("sha256").update(markOf(first)).digest("hex").slice(0, 16);
  return { sessionKey: `${PROVIDER_KEY_PREFIX}${id}`, sessionId: `compaction-${id}` };
}

async function render(opts: SlotOptions, params: SummarizeParams, messages: AgentMessage[], replied: Promise<unknown>): Promise<string> {
  const known = identifySession(messages);
  const { sessionId, sessionKey } = known ?? anonymousSession(messages);
  // the process's slot of the session, made when missing (the engine's when it has one)
  let slot = heldSlot(opts, sessionId, sessionKey);
  if (slot) await slot.reload();
  else keepSlot(opts, sessionId, (slot = await SessionSlot.open(opts, sessionId, sessionKey)));
  const stored = canonicalSessionKey(slot.sessionKey);
  // the checkpoint the engine's compact() wrote for this compaction just before delegating to the runtime
  const outcome = known && compactionOutcomeSince(opts.stateDir, stored, sessionId, Date.now() - SAME_COMPACTION_MS);
  const latest = outcome?.checkpointId && !outcome.summarized ? await readLatestCheckpoint(opts, stored) : null;
  const earlier = latest && latest.meta.checkpoint_id === outcome?.checkpointId ? latest : null;
  // on disk before OpenClaw gets the summary (`openclaw sessions compact` exits right after it); the span's
  // archive starts on the turn after `summarize` returned, off the reply path
  const archiveAfter = replied.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  const tokens = slot.lastTokens || slot.data.tokens;
  const cwd = opts.workspaceDir ?? process.cwd();
  const started = earlier ? null : await slot.beforeCompaction(tokens, cwd, messages, { span: messages, archiveAfter });
  const cp = earlier ?? started?.checkpoint;
  if (!cp) return "";
  if (started && !(await started.durable)) opts.logger?.warn("[context-manager] compaction provider: the compaction checkpoint could not be written; the summary is sent");
  markCompactionSummarized(opts.stateDir, stored, sessionId);
  if (started) await slot.afterOwnCompaction(null);
  const previous = typeof params.previousSummary === "string" ? params.previousSummary : null;
  // a summary of ours: carried by the cumulative checkpoint of a known session, quoted for another
  const carried = known ? previous : previous?.replace(COMPACTION_SUMMARY_HEADER, "").trim() ?? null;
  const maxTokens = summaryBudget(opts.config.compactionSummaryMaxTokens, params.compressionRatio, messages);
  return renderCompactionSummary(cp, { maxTokens, previousSummary: carried }).text;
}

export function createCompactionProvider(opts: SlotOptions): CompactionProviderShape {
  return {
    id: COMPACTION_PROVIDER_ID,
    label: "Context manager (checkpoint summary, no model call)",
    async summarize(params: SummarizeParams): Promise<string> {
      const signal = params?.signal;
      if (signal?.aborted) throw abortReason(signal);
      const raw: unknown[] = Array.isArray(params?.messages) ? params.messages : [];
      // nothing to summarize: "" leaves it to OpenClaw (which does not call a provider for that)
      if (raw.length === 0) return "";
      const messages = raw.filter(isMessage);
      let reply!: () => void;
      const replied = new Promise<void>((resolve) => (reply = resolve));
      const text = await render(opts, params, messages, replied).catch((e: unknown) => {
        warnFailure(opts.logger, "compaction provider", e);
        return "";
      });
      reply();
      if (signal?.aborted) throw abortReason(signal);
      return text.trim() ? text : fallbackSummary(raw.length);
    },
  };
}

export type ProviderSession = { sessionKey: string; sessionId: string };

/** stamps: role@timestamp of the messages the hook saw; null: the hook passed none */
type Hint = ProviderSession & { at: number; stamps: Set<string> | null };

const HINT_TTL_MS = 10 * 60_000;
const MAX_HINTS = 64;

// the compaction hints not used yet, the oldest first (at most MAX_HINTS)
declare module "../infra/process-services.js" {
  interface ProcessServices { providerHints?: Hint[] }
}

const hints = (): Hint[] => (processServices().providerHints ??= []);

/** role@timestamp of a conversation message; null for anything else. */
function stampOf(m: unknown): string | null {
  const x = m as { role?: unknown; timestamp?: unknown } | null;
  return x && typeof x === "object" && CONVERSATION.has(String(x.role)) && x.timestamp !== undefined ? markOf(x) : null;
}

/** The `before_compaction` hook's event and context (auto-compaction: messages and sessionFile; others: sessionId). */
export function noteCompactionHint(event: unknown, ctx: unknown, now = Date.now()): void {
  const e = (event ?? {}) as { messages?: unknown; sessionFile?: unknown };
  const c = (ctx ?? {}) as { sessionKey?: unknown; sessionId?: unknown };
  const fileId = typeof e.sessionFile === "string" && e.sessionFile ? path.basename(e.sessionFile).replace(/\.jsonl?$/, "") : "";
  const sessionId = typeof c.sessionId === "string" && c.sessionId ? c.sessionId : fileId;
  const sessionKey = hostSessionKey(c.sessionKey)?.trim() || (sessionId ? `openclaw:${sessionId}` : "");
  if (!sessionKey) return;
  const list = hints();
  const stamps = Array.isArray(e.messages) ? new Set(e.messages.map(stampOf).filter((x) => x !== null)) : null;
  list.push({ sessionKey, sessionId: sessionId || sessionKey, at: now, stamps });
  if (list.length > MAX_HINTS) list.splice(0, list.length - MAX_HINTS);
}

/** The session of `messages`, or null when it cannot be told. */
export function identifySession(messages: readonly unknown[], now = Date.now()): ProviderSession | null {
  const list = hints();
  for (let i = list.length - 1; i >= 0; i--) if (now - list[i]!.at > HINT_TTL_MS) list.splice(i, 1);
  // the first and last conversation stamps of the provider's messages: what a matching history must hold
  const stamps = messages.map(stampOf).filter((x) => x !== null);
  const ends = stamps.length > 0 ? [stamps[0]!, stamps.at(-1)!] : [];
  let hint = list.findLast((h) => ends.length > 0 && h.stamps && ends.every((x) => h.stamps!.has(x)));
  if (!hint) {
    const bare = list.filter((h) => h.stamps === null);
    if (bare.length !== 1) return null;
    hint = bare[0]!;
  }
  list.splice(list.indexOf(hint), 1);
  return { sessionKey: hint.sessionKey, sessionId: hint.sessionId };
}

/** Test seam: forget every hint. */
export function clearCompactionHints(): void {
  hints().length = 0;
}
