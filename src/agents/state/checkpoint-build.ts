/**
 * A checkpoint draft from the captured state (spec §11), pure. State resets after each write, so
 * the previous checkpoint of the SAME session id is carried forward with the delta merged in.
 */
import type { Checkpoint, CheckpointDraft, CheckpointTrigger, Decision, KeyExchange } from "../checkpoint/schema.js";
import type { LastToolCall, SessionIdentity, WorkLedger, WorkspaceSnapshot } from "../checkpoint/schema.js";
import type { ArtifactRef, ContextBreakdown } from "../checkpoint/schema.js";
import { CHECKPOINT_SCHEMA, CHECKPOINT_SCHEMA_VERSION } from "../checkpoint/schema.js";
import { GIST, itemKey, normalizeToolPath } from "./capture-rules.js";
import { gist, safeGist } from "../text/gist.js";
import type { GaugeReading } from "../gauge/context-gauge.js";
import { keepNewest } from "./lru.js";
import { type CaptureCaps, type ContextStateSnapshot, errorKey } from "./captured-state.js";

export interface BuildCheckpointParams {
  state: ContextStateSnapshot;
  /** latest checkpoint of this key; carried forward only when it has the same session id */
  previous: Checkpoint | null;
  trigger: CheckpointTrigger;
  reading: GaugeReading;
  identity: SessionIdentity;
  compactionCount: number;
  /** the compacted span's file lists */
  fileOps?: { read: Iterable<string>; written: Iterable<string>; edited: Iterable<string> };
  splitTurn?: { isSplitTurn: boolean; lastToolCall: LastToolCall | null };
  config: CaptureCaps;
  now?: Date;
  /** to make fileOps paths relative like the captured ones; without it they are only redacted */
  cwd?: string;
  /** the workspace record of the modified files (drift/record.ts); absent: none */
  workspace?: (filesModified: readonly string[]) => WorkspaceSnapshot | null;
  /** stored outputs the draft's files name (engine/context-manager-engine.ts); absent: none */
  artifacts?: (files: { modified: readonly string[]; read: readonly string[] }) => ArtifactRef[];
  /** what filled the window (issue 27, breakdown/compute.ts); absent/null: not recorded */
  breakdown?: ContextBreakdown | null;
}

const SUMMARY_PART = 100;

/** Ordered union where a repeated key moves to the end (most recent), then the newest `cap`. */
function mergeNewest<T>(lists: Iterable<T>[], cap: number, keyOf = (t: T): string => t as string): T[] {
  const m = new Map<string, T>();
  for (const list of lists) {
    for (const item of list) {
      const k = keyOf(item);
      m.delete(k);
      m.set(k, item);
    }
  }
  return keepNewest([...m.values()], cap);
}

export function buildCheckpointDraft(p: BuildCheckpointParams): CheckpointDraft {
  const { state, identity, config } = p;
  const now = p.now ?? new Date();
  const meta = p.previous?.meta;
  const same = meta?.session_key === identity.sessionKey && (meta.session_id ?? null) === (identity.sessionId ?? null);
  const prev = same ? p.previous : null;

  // --- decisions: previous ids kept, new ones numbered after the highest
  const prevDecisions = prev?.decisions ?? [];
  let nextId = Math.max(0, ...prevDecisions.map((d) => Number(/^d(\d+)$/.exec(d.id)?.[1] ?? 0))) + 1;
  const seen = new Set(prevDecisions.map((d) => d.what));
  const isNew = (d: { what: string }): boolean => !seen.has(d.what) && !!seen.add(d.what);
  const fresh: Decision[] = state.decisions.filter(isNew).map(({ what, when }) => ({ id: `d${nextId++}`, what, when }));
  const decisions = keepNewest([...prevDecisions, ...fresh], config.maxDecisions);

  // --- resources: written+edited -> modified; a modified file is not also listed as read
  const norm = (f: string): string => (p.cwd ? normalizeToolPath(f, p.cwd) : safeGist(f, 400));
  // pi's fileOps come from tool CALLS, so they also list reads that failed (ENOENT…): a path
  // whose read only ever failed is a tool failure (thread.errors), not a file read
  const readOk = new Set([...(prev?.resources.files_read ?? []), ...state.resources.files_read]);
  const readFailed = new Set(
    [...(prev?.thread.errors ?? []), ...state.errors].filter((e) => e.tool === "read").map((e) => e.target),
  );
  const opsRead = p.fileOps ? [...p.fileOps.read].map(norm).filter((f) => readOk.has(f) || !readFailed.has(f)) : [];
  const opsModified = p.fileOps ? [...p.fileOps.written, ...p.fileOps.edited].map(norm) : [];
  const modifiedLists = [prev?.resources.files_modified ?? [], opsModified, state.resources.files_modified];
  const filesModified = mergeNewest(modifiedLists, config.maxFiles);
  const allModified = new Set(modifiedLists.flat());
  const readLists = [prev?.resources.files_read ?? [], opsRead, state.resources.files_read];
  const filesRead = mergeNewest(readLists.map((l) => l.filter((f) => !allModified.has(f))), config.maxFiles);
  const toolsUsed = mergeNewest([prev?.resources.tools_used ?? [], state.resources.tools_used], config.maxTools);

  // --- thread
  const prevFirst = prev?.thread.key_exchanges[0]?.role === "user" ? prev.thread.key_exchanges[0] : undefined;
  const firstUser = state.firstUser ?? (prevFirst ? gist(prevFirst.gist, SUMMARY_PART) : null);
  const lastUser = state.lastUser ?? (prev?.working.topic || null);
  const summary = threadSummary(firstUser, lastUser);
  const keyExchanges = mergeExchanges(prev?.thread.key_exchanges ?? [], state.keyExchanges, config.maxExchanges);
  const errors = mergeNewest([prev?.thread.errors ?? [], state.errors], config.maxErrors, errorKey);

  // --- open items: carried forward minus the ones closed since, plus the current ones
  const closed = new Set(state.closedItems.map(itemKey));
  // failures live in work.open_failures now; items of that form from older writers are dropped
  const carried = (prev?.open_items ?? []).filter((t) => !closed.has(itemKey(t)) && !t.startsWith(LEGACY_FAILURE_ITEM));
  const openItems = mergeNewest([carried, state.openItems], config.maxOpenItems, itemKey);
  const learnings = mergeNewest([prev?.learnings ?? [], state.learnings], config.maxLearnings, itemKey);

  // --- working
  const interrupted = (p.splitTurn?.isSplitTurn ?? false) || state.interrupted;
  const lastToolCall = interrupted ? (p.splitTurn?.lastToolCall ?? state.lastToolCall) : null;
  const useState = state.hasActivity || !prev;
  const working = {
    topic: lastUser ? gist(lastUser, GIST.topic) : (prev?.working.topic ?? ""),
    status: useState ? state.status : prev.working.status,
    interrupted,
    last_tool_call: lastToolCall,
    next_action: useState ? state.nextAction : prev.working.next_action,
  };

  const work = mergeWork(prev?.work, state.work);
  const workspace = p.workspace?.(filesModified) ?? null;
  const artifacts = p.artifacts?.({ modified: filesModified, read: filesRead }) ?? [];
  return {
    schema: CHECKPOINT_SCHEMA,
    schema_version: CHECKPOINT_SCHEMA_VERSION,
    meta: {
      session_key: identity.sessionKey,
      session_id: identity.sessionId,
      session_file: identity.sessionFile,
      created_at: now.toISOString(),
      trigger: p.trigger,
      compaction_count: p.compactionCount,
      token_usage: {
        input_tokens: Math.max(0, Math.round(p.reading.tokens)),
        context_window: Math.max(0, Math.round(p.reading.contextWindow)),
        utilization: Math.round(p.reading.utilization * 10_000) / 10_000,
      },
      channel: identity.channel,
      agent_id: identity.agentId,
      ...(p.breakdown ? { breakdown: p.breakdown } : {}),
    },
    working,
    decisions,
    resources: { files_read: filesRead, files_modified: filesModified, tools_used: toolsUsed },
    thread: { summary, key_exchanges: keyExchanges, errors },
    open_items: openItems,
    learnings,
    work,
    ...(workspace ? { workspace } : {}),
    ...(artifacts.length ? { artifacts } : {}),
  };
}

const LEGACY_FAILURE_ITEM = "Unresolved failure: ";

/** The state's ledger is session-long: the previous one only fills what the state lost (files moved aside). */
function mergeWork(prev: WorkLedger | undefined, cur: WorkLedger): WorkLedger {
  if (!prev) return cur;
  if (!cur.requests.length && !cur.files.length && !cur.commands.length) return prev;
  const known = new Set(cur.files.map((f) => f.path));
  const knownCmd = new Set(cur.commands.map((c) => c.family));
  return {
    ...cur,
    files: [...cur.files, ...prev.files.filter((f) => !known.has(f.path))],
    commands: [...cur.commands, ...prev.commands.filter((c) => !knownCmd.has(c.family))],
    requests: cur.requests.length > 0 ? cur.requests : prev.requests,
    last_report: cur.last_report || prev.last_report,
    ...((cur.turns ?? prev.turns) ? { turns: cur.turns ?? prev.turns } : {}),
    ...((cur.tasks ?? prev.tasks) ? { tasks: cur.tasks ?? prev.tasks } : {}),
  };
}

/** spec §11.2: first user message (100) + " ... " + last user message (100); just the first when equal. */
function threadSummary(firstUser: string | null, lastUser: string | null): string {
  const first = firstUser ? gist(firstUser, SUMMARY_PART) : "";
  const last = lastUser ? gist(lastUser, SUMMARY_PART) : "";
  if (!first) return last;
  if (!last || last === first) return first;
  return `${first} ... ${last}`;
}

/** Previous exchanges then the new ones, dedup by role+gist (latest position), first user entry kept, newest within the cap. */
function mergeExchanges(previous: KeyExchange[], current: KeyExchange[], cap: number): KeyExchange[] {
  const all = [...previous, ...current];
  const first = all[0]?.role === "user" ? all[0] : undefined;
  const key = (e: KeyExchange) => `${e.role}\u0000${e.gist}`;
  const rest = all.slice(first ? 1 : 0).filter((e) => !first || key(e) !== key(first));
  const kept = mergeNewest([rest], Math.max(0, cap - (first ? 1 : 0)), key);
  return first ? [first, ...kept] : kept;
}
