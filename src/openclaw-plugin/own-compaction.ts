/**
 * The plugin's own compaction (issue 25, "checkpoint" mode, and the fallback of "host" mode):
 * `compact()` cuts the history it saw last at a turn boundary, writes the compaction checkpoint,
 * archives what it cut, and renders the checkpoint as the summary; `assemble` then sends the
 * summary plus the kept messages. The runtime's transcript is untouched: the view is a cut
 * count over it, checked against the message at the cut, kept per session id for the process
 * and on disk (`own-compaction.json` beside the state files) for the next instance or process.
 *
 * A later compact() (the overflow-recovery retry, a threshold later on) cuts further along
 * the same history; when the kept part alone is still too large it keeps only the last turn.
 */
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateContextTokens } from "../agents/gauge/context-gauge.js";
import { compactionWithoutPreparation } from "../agents/engine/compaction-input.js";
import { heldSession, sessionAt } from "../agents/engine/cache-budget.js";
import type { OwnCompactionView } from "../agents/engine/session.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import { writeFileAtomic } from "../infra/atomic-file.js";
import { readTextCapped } from "../infra/capped-read.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import { stateSessionDir } from "../infra/session-dir.js";
import type { CompactResult } from "./engine-types.js";
import type { SessionSlot } from "./session-slot.js";

export type { OwnCompactionView };

/** Share of the window the kept messages may take (pi's keepRecentTokens is 20k of 200k). */
const KEEP_SHARE = 0.1;

/** The view holds a summary of ≤ 2,000 tokens; a larger file (or a FIFO, /dev/zero) is not ours and is not read. */
const VIEW_FILE_MAX_BYTES = 1024 * 1024;

/** The view in memory is the key's Session's (`lasting.ownCompaction`): it may be ahead of its file. */
const idOf = (stateDir: string, sessionKey: string) => `${path.resolve(stateDir)}\u0000${sessionKey}`;

const fileOf = (stateDir: string, sessionKey: string) => path.join(stateSessionDir(stateDir, sessionKey), "own-compaction.json");

function markOf(m: AgentMessage | undefined): string {
  const x = m as { role?: unknown; timestamp?: unknown } | undefined;
  return `${String(x?.role)}@${String(x?.timestamp)}`;
}

export async function ownCompactionView(stateDir: string, sessionKey: string, sessionId: string): Promise<OwnCompactionView | null> {
  const mem = heldSession(idOf(stateDir, sessionKey))?.lasting.ownCompaction;
  if (mem) return mem.sessionId === sessionId ? mem : null;
  try {
    const v = JSON.parse(await readTextCapped(nodeFsOps, fileOf(stateDir, sessionKey), VIEW_FILE_MAX_BYTES)) as OwnCompactionView;
    if (typeof v?.cut !== "number" || typeof v.summary !== "string" || typeof v.mark !== "string") return null;
    sessionAt(path.resolve(stateDir), sessionKey).lasting.ownCompaction = v;
    return v.sessionId === sessionId ? v : null;
  } catch {
    return null;
  }
}

/** What assemble sends: the summary and the messages after the cut; the history as is without a view that fits it. */
export function applyOwnCompaction(view: OwnCompactionView | null, messages: AgentMessage[]): AgentMessage[] {
  if (!view || view.cut <= 0 || messages.length < view.cut || markOf(messages[view.cut - 1]) !== view.mark) return messages;
  const at = typeof view.at === "number" && Number.isFinite(view.at) ? view.at : Date.now();
  const summary = { role: "compactionSummary", summary: view.summary, tokensBefore: view.tokensBefore, timestamp: at } as unknown as AgentMessage;
  return [summary, ...messages.slice(view.cut)];
}

/**
 * Where to cut `history` (the runtime's whole transcript): at the start of a user turn, keeping
 * about `keepTokens` of the newest messages, never before `after` (an earlier cut), and never
 * splitting a tool call from its result (a cut before a user message cannot). 0: nothing to cut.
 */
export function chooseCut(history: readonly AgentMessage[], keepTokens: number, after: number): number {
  // turn starts after the first user message (a cut before it would compact only what precedes the first request)
  const userStarts: number[] = [];
  let seenUser = false;
  for (let i = 0; i < history.length; i++) {
    if ((history[i] as { role?: string }).role !== "user") continue;
    if (seenUser) userStarts.push(i);
    seenUser = true;
  }
  let kept = 0;
  let cut = 0;
  for (let i = history.length - 1, u = userStarts.length - 1; i >= 0 && u >= 0; i--) {
    // chars/4 of the message itself (estimateContextTokens would take a reply's usage for the whole prefix)
    kept += estimateTextTokens(safeJson(history[i]));
    if (i === userStarts[u]) {
      if (kept > keepTokens) break;
      cut = i;
      u--;
    }
  }
  // nothing fits the keep budget, or no further than before: keep the last turn only
  if (cut <= after) cut = userStarts.at(-1) ?? 0;
  return cut > after ? cut : 0;
}

/**
 * compact() without the runtime: checkpoint, archive of the cut part, summary, the view.
 * `history` is what the plugin saw last (compact() receives no messages).
 */
export async function compactOwn(slot: SessionSlot, sessionId: string, history: AgentMessage[], tokensBefore: number, window: number, cwd: string, stateDir: string): Promise<CompactResult> {
  const startedAt = performance.now();
  const prev = await ownCompactionView(stateDir, slot.sessionKey, sessionId);
  const after = prev && applyOwnCompaction(prev, history) !== history ? prev.cut : 0;
  // a compaction over a view still in place (the overflow-recovery retry) keeps half as much
  const keep = Math.max(500, Math.floor((window * KEEP_SHARE) / (after > 0 ? 2 : 1)));
  const cut = chooseCut(history, keep, after);
  // already down to the summary and the last turn: nothing is lost by answering "compacted" with the same view
  if (cut === 0 && prev && after > 0) return { ok: true, compacted: false, reason: "already compacted: the summary and the last turn" };
  if (cut === 0) return { ok: false, compacted: false, reason: "nothing to compact: the history is one turn" };
  const event = compactionWithoutPreparation(history.slice(0, cut).map((message) => ({ type: "message", message })), tokensBefore);
  // the summary is rendered from the checkpoint built in memory; its durable write and the cut
  // part's archive follow in the background (checkpoint-compaction.ts); the view is the
  // compaction itself (the runtime's transcript is untouched): it is written before returning
  const { checkpoint } = await slot.session.beforeCompaction(event, { use: "summary", cwd, span: history.slice(after, cut), asCompaction: false });
  if (!checkpoint) return { ok: false, compacted: false, reason: "the compaction checkpoint could not be written" };
  const rendered = slot.session.compactionSummary(checkpoint);
  const view: OwnCompactionView = { sessionId, cut, mark: markOf(history[cut - 1]), summary: rendered.text, tokensBefore, checkpointId: checkpoint.meta.checkpoint_id, at: Date.now() };
  sessionAt(path.resolve(stateDir), slot.sessionKey).lasting.ownCompaction = view;
  await writeFileAtomic(fileOf(stateDir, slot.sessionKey), JSON.stringify(view));
  const tokensAfter = estimateContextTokens(applyOwnCompaction(view, history));
  return {
    ok: true,
    compacted: true,
    result: {
      summary: rendered.text,
      tokensBefore,
      tokensAfter,
      details: { contextManager: { checkpointId: view.checkpointId, cut, summaryTokens: rendered.tokens, compactionMs: Math.round((performance.now() - startedAt) * 100) / 100 } },
    },
  };
}

function safeJson(m: unknown): string {
  try {
    return JSON.stringify(m) ?? "";
  } catch {
    return "";
  }
}
