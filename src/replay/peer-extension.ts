/**
 * A peer's pi extension, loaded at run time from a path outside this package (a bench
 * measures it side by side with ours: docs/compaction.md "Side by side with pi-vcc").
 * Nothing of the peer is copied here: pi's own extension loader (the one `pi -e <path>`
 * uses: jiti, pi's packages aliased) loads its entry, and its registrations are handed
 * on, either to the replayed AgentSession as one more extension factory, or to a caller
 * that runs its `session_before_compact` handler on the same messages our summary is
 * built from (summary-overlap.ts).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { discoverAndLoadExtensions, type ExtensionFactory, findCutPoint, SessionManager } from "@mariozechner/pi-coding-agent";

type Handler = (event: unknown, ctx: unknown) => unknown;

/** What the peer registered: its event handlers and tools. */
export interface PeerExtension {
  path: string;
  handlers: Map<string, Handler[]>;
  /** the tools it registers (pi's `tools` option is an allowlist: a session with the peer activates them) */
  toolNames: string[];
  /** the same registrations as a factory for AgentRunner's extraExtensionFactories */
  factory: ExtensionFactory;
}

/** Loads a pi extension (an entry file, or a package directory with `pi.extensions` / index.ts). */
export async function loadPeerExtension(path: string): Promise<PeerExtension> {
  const p = resolve(path);
  if (!existsSync(p)) throw new Error(`peer extension not found: ${p}`);
  // an empty agent dir and cwd: only the given path is loaded, no user's or project's extensions
  const scratch = mkdtempSync(join(tmpdir(), "cm-peer-"));
  try {
    const r = await discoverAndLoadExtensions([p], scratch, scratch);
    if (r.errors.length) throw new Error(`peer extension ${p}: ${r.errors.map((e) => e.error).join("; ")}`);
    const ext = r.extensions.find((e) => resolve(e.resolvedPath).startsWith(existsSync(join(p, "package.json")) ? p : dirname(p)));
    if (!ext) throw new Error(`peer extension ${p}: nothing loaded`);
    const handlers = ext.handlers as unknown as Map<string, Handler[]>;
    const factory: ExtensionFactory = (pi) => {
      const on = pi.on as unknown as (e: string, h: Handler) => void;
      for (const [event, hs] of handlers) for (const h of hs) on(event, h);
      for (const t of ext.tools.values()) pi.registerTool(t.definition);
      for (const c of ext.commands.values()) pi.registerCommand(c.name, { description: c.description, handler: c.handler });
    };
    return { path: ext.resolvedPath, handlers, toolNames: [...ext.tools.keys()], factory };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** pi's rule for `preparation.fileOps` (compaction/utils.js extractFileOpsFromMessage), on the summarized messages. */
export function fileOpsOf(messages: readonly AgentMessage[]) {
  const ops = { read: new Set<string>(), written: new Set<string>(), edited: new Set<string>() };
  for (const m of messages) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type?: string; name?: string; arguments?: { path?: unknown } }>) {
      const path = b?.type === "toolCall" && typeof b.arguments?.path === "string" ? b.arguments.path : null;
      if (!path) continue;
      if (b.name === "read") ops.read.add(path);
      else if (b.name === "write") ops.written.add(path);
      else if (b.name === "edit") ops.edited.add(path);
    }
  }
  return ops;
}

/**
 * The summary the peer's `session_before_compact` returns for a session made of these
 * messages (no earlier compaction), or null when it declines (pi's own summary would run).
 * The branch is a real SessionManager's; `preparation` is what pi's prepareCompaction gives
 * (its cut keeps `keepRecentTokens`, pi's default 20,000; fileOps over what is before it).
 */
export async function peerSummaryOf(
  peer: PeerExtension,
  messages: readonly AgentMessage[],
  keepRecentTokens = 20_000,
): Promise<string | null> {
  const sm = SessionManager.inMemory("/replay-cwd");
  for (const m of messages) sm.appendMessage(m as never);
  const branchEntries = sm.getBranch();
  const cut = findCutPoint(branchEntries, 0, branchEntries.length, keepRecentTokens);
  const before = branchEntries.slice(0, cut.firstKeptEntryIndex).flatMap((e) => (e.type === "message" ? [e.message as AgentMessage] : []));
  const preparation = {
    firstKeptEntryId: branchEntries[cut.firstKeptEntryIndex]?.id,
    messagesToSummarize: before,
    turnPrefixMessages: [],
    isSplitTurn: cut.isSplitTurn,
    tokensBefore: 0,
    previousSummary: undefined,
    fileOps: fileOpsOf(before),
  };
  const event = { type: "session_before_compact", preparation, branchEntries, signal: new AbortController().signal };
  let summary: string | null = null;
  for (const h of peer.handlers.get("session_before_compact") ?? []) {
    const r = (await h(event, {})) as { compaction?: { summary?: unknown } } | undefined;
    if (typeof r?.compaction?.summary === "string") summary = r.compaction.summary;
  }
  return summary;
}
