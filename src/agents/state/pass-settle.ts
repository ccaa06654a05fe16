/** The end of a capture pass: gists of the texts still standing (capture-target.ts), taken once. */
import type { LastToolCall } from "../checkpoint/schema.js";
import { changeGist } from "../messages/tool-outcome.js";
import { safeGist } from "../text/safe-gist.js";
import { GIST } from "./capture-sizes.js";
import { endsWithQuestion, lastNonBlankLine, proposalGist, summarizeToolCall } from "./message-rules.js";
import { backtickNames } from "./turn-log.js";
import type { CaptureTarget } from "./capture-target.js";

/** Fills a call's summary, if it is still to be taken. */
export function settleCall(t: CaptureTarget, entry: LastToolCall): void {
  const call = t.deferred.calls.get(entry);
  if (!call) return;
  t.deferred.calls.delete(entry);
  try {
    const s = summarizeToolCall(call.name, call.args);
    entry.name = s.name;
    entry.params_summary = s.params_summary;
  } catch (err) {
    t.log.fail("message capture", err);
  }
}

/** Each changed file's latest change gist from this pass (onFileChanged). */
function settleChanges(t: CaptureTarget): void {
  const work = t.acc.work;
  for (const [path, list] of t.deferred.changes) {
    if (!work.hasFile(path)) continue;
    try {
      for (let i = list.length - 1; i >= 0; i--) {
        const change = safeGist(changeGist(list[i]!.tool, list[i]!.input), GIST.change);
        if (!change) continue;
        work.setChange(path, change);
        break;
      }
    } catch (err) {
      t.log.fail("message capture", err);
    }
  }
}

/** The gists of the texts still standing at the end of a capture pass (capture-target.ts). */
export function settleDeferred(target: CaptureTarget): void {
  const d = target.deferred;
  const t = target.acc.thread;
  try {
    if (d.tail && t.last === d.tail.last) t.last.endsWithQuestion = endsWithQuestion(d.tail.text);
    if (t.last_tool_call) settleCall(target, t.last_tool_call);
    for (const call of t.pending_calls) settleCall(target, call);
    settleChanges(target);
    settleTurnTexts(target);
    settleProposal(target);
    for (let i = d.reports.length - 1; i >= 0; i--) {
      const report = safeGist(d.reports[i]!.text, GIST.report);
      if (!report) continue;
      target.acc.work.onReport(report, d.reports[i]!.seq);
      break;
    }
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

/** Each turn's outcome, for the turns the log still holds: its latest text with a gist. */
function settleTurnTexts(t: CaptureTarget): void {
  const log = t.acc.work.turnLog;
  for (const [turn, texts] of t.deferred.turnTexts) {
    if (!log.holds(turn)) continue;
    for (let i = texts.length - 1; i >= 0; i--) {
      const outcome = safeGist(texts[i]!, GIST.turnOutcome);
      if (!outcome) continue;
      log.onText(outcome, backtickNames(texts[i]!).map((n) => safeGist(n, GIST.name)).filter(Boolean), turn);
      break;
    }
  }
}

/** The pending long answer's proposal, when that answer is still the previous one. */
export function settleProposal(t: CaptureTarget): void {
  const p = t.deferred.proposal;
  t.deferred.proposal = null;
  if (p && t.acc.thread.prev_assistant === p.of) p.of.proposal = proposalGist(p.text);
}
