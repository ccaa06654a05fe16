/** What a capture writes into: the accumulators, the gists that wait for the pass's end, the files changed. */
import type { LastToolCall } from "../checkpoint/schema.js";
import type { OnceLogger } from "../../infra/log-once.js";
import { changeGist } from "../messages/tool-outcome.js";
import { safeGist } from "../text/safe-gist.js";
import { GIST } from "./message-rules.js";
import { type CaptureCaps, CapturedState } from "./captured-state.js";
import { endsWithQuestion, lastNonBlankLine, proposalGist, summarizeToolCall } from "./message-rules.js";
import { backtickNames } from "./turn-log.js";
import type { StateFileName } from "./state-files.js";
import type { Exchange, LastMessageInfo, Thread } from "./thread-data.js";

/** Texts a later message of the pass may replace: gisted only if still standing at its end (most never are). */
class DeferredGists {
  /** each turn's texts by turn-log entry, oldest first (the latest with a gist stands for the turn) */
  turnTexts = new Map<object, string[]>();
  /** turn-ending texts with the request number they answered, oldest first */
  reports: Array<{ text: string; seq: number }> = [];
  /** the last message's info object, whose tail is this text's last line */
  tail: { last: LastMessageInfo; text: string } | null = null;
  /** exchanges (by identity) and their text */
  exchanges = new Map<Exchange, string>();
  /** a long answer's proposal, by the prev_assistant object it belongs to */
  proposal: { of: NonNullable<Thread["prev_assistant"]>; text: string } | null = null;
  /** per changed path, this pass's edit/write calls, oldest first (the latest with a gist stands) */
  changes = new Map<string, Array<{ tool: string; input: unknown }>>();
  /** summaries not taken yet, by the last_tool_call or pending call object they fill */
  calls = new Map<LastToolCall, { name: string; args: unknown }>();

  clearPass(): void {
    this.turnTexts.clear();
    this.reports = [];
    this.tail = null;
    this.exchanges.clear();
    this.changes.clear();
    this.calls.clear();
  }
}

export class CaptureTarget {
  readonly acc: CapturedState;
  readonly deferred = new DeferredGists();
  readonly dirtyFiles = new Set<StateFileName>();
  /** inside captureMessages: a tool result's change gist can wait for the pass's end */
  inPass = false;

  constructor(
    caps: CaptureCaps,
    readonly log: OnceLogger,
  ) {
    this.acc = new CapturedState(caps);
  }

  mark(name: StateFileName): void {
    this.dirtyFiles.add(name);
  }

  openItem(key: string, text: string): void {
    if (this.acc.items.openItem(key, text)) this.mark("open_items");
  }

  closeItem(key: string): void {
    if (this.acc.items.closeItem(key)) this.mark("open_items");
  }

  /** A call whose summary is taken when the pass ends (settleCall). */
  deferCall<T extends LastToolCall>(entry: T, name: string, args: unknown): T {
    this.deferred.calls.set(entry, { name, args });
    return entry;
  }
}

/** Fills a call's summary, if it is still to be taken. */
export function settleCall(t: CaptureTarget, entry: LastToolCall): void {
  const call = t.deferred.calls.get(entry);
  if (!call) return;
  t.deferred.calls.delete(entry);
  try {
    Object.assign(entry, summarizeToolCall(call.name, call.args));
  } catch (err) {
    t.log.fail("message capture", err);
  }
}

/** The newest of `items` whose gist is not empty, with that gist (the latest that says something stands). */
function latestWithGist<T>(items: readonly T[], gistOf: (item: T) => string): { item: T; gist: string } | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const g = gistOf(items[i]!);
    if (g) return { item: items[i]!, gist: g };
  }
  return null;
}

/** The gists of the texts still standing at the end of a capture pass. */
export function settleDeferred(target: CaptureTarget): void {
  const d = target.deferred;
  const t = target.acc.thread;
  const work = target.acc.work;
  try {
    if (d.tail && t.last === d.tail.last) t.last.endsWithQuestion = endsWithQuestion(d.tail.text);
    if (t.last_tool_call) settleCall(target, t.last_tool_call);
    for (const call of t.pending_calls) settleCall(target, call);
    // each changed file's latest change gist from this pass
    for (const [path, list] of d.changes) {
      if (!work.hasFile(path)) continue;
      try {
        const change = latestWithGist(list, (c) => safeGist(changeGist(c.tool, c.input), GIST.change));
        if (change) work.setChange(path, change.gist);
      } catch (err) {
        target.log.fail("message capture", err);
      }
    }
    // each turn's outcome, for the turns the log still holds
    for (const [turn, texts] of d.turnTexts) {
      const outcome = work.turnLog.holds(turn) ? latestWithGist(texts, (x) => safeGist(x, GIST.turnOutcome)) : null;
      if (outcome) work.turnLog.onText(outcome.gist, gistedNames(backtickNames(outcome.item)), turn);
    }
    settleProposal(target);
    const report = latestWithGist(d.reports, (r) => safeGist(r.text, GIST.report));
    if (report) work.onReport(report.gist, report.item.seq);
    if (d.tail && t.last === d.tail.last) t.last.tail = safeGist(lastNonBlankLine(d.tail.text), GIST.topic);
    for (const ex of [...t.recent, ...t.pivots, t.first_exchange]) {
      const text = ex ? d.exchanges.get(ex) : undefined;
      if (ex && text !== undefined) {
        ex.gist = safeGist(text, GIST.exchange);
        d.exchanges.delete(ex);
      }
    }
  } catch (err) {
    target.log.fail("message capture", err);
  } finally {
    d.clearPass();
  }
}

/** Names as the state keeps them: each gisted, empty ones dropped. */
export function gistedNames(names: readonly string[]): string[] {
  return names.map((n) => safeGist(n, GIST.name)).filter(Boolean);
}

/** The pending long answer's proposal, when that answer is still the previous one. */
export function settleProposal(t: CaptureTarget): void {
  const p = t.deferred.proposal;
  t.deferred.proposal = null;
  if (p && t.acc.thread.prev_assistant === p.of) p.of.proposal = proposalGist(p.text);
}
