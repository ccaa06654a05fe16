/** Human-readable timeline of the demo: one block per turn, checkpoints, compactions, restore blocks. */
import { COMPACTION_SUMMARY_HEADER } from "../agents/inject/markers.js";
import { relative } from "node:path";
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { formatTokenCount } from "../agents/gauge/gauge-line.js";
import { gist } from "../agents/text/gist.js";
import { breakdownBar, breakdownTable } from "../agents/breakdown/render.js";

export type Print = (line: string) => void;

const pct = (tokens: number, window: number) => (window > 0 ? `${Math.round((tokens / window) * 100)}%` : "?%");
const k = formatTokenCount;

export class TimelinePrinter {
  constructor(
    private readonly print: Print,
    private readonly stateDir: string,
  ) {}

  banner(lines: string[]): void {
    for (const l of lines) this.print(l);
  }

  turnHeader(label: string, userText: string): void {
    this.print("");
    this.print(`── ${label} ${"─".repeat(Math.max(4, 60 - label.length))}`);
    this.print(`  user   › ${gist(userText, 110)}`);
  }

  /** The System: lines prepended to this turn's user message, verbatim. */
  delivered(prompt: string, userText: string): void {
    const injected = prompt.endsWith(userText) ? prompt.slice(0, prompt.length - userText.length).trimEnd() : prompt;
    this.print("  the agent receives this user message (system events first):");
    for (const line of injected.split("\n")) this.print(`    │ ${line}`);
    this.print(`    │`);
    this.print(`    │ ${gist(userText, 100)}`);
  }

  tool(name: string, target: string, isError: boolean, errorText: string): void {
    const status = isError ? `✗ ${gist(errorText, 70)}` : "✓";
    this.print(`  tool   ${name.padEnd(5)} ${gist(target, 60)} ${status}`);
  }

  gauge(line: string): void {
    this.print(`  gauge  ${line}   (appended for the agent before this model call)`);
  }

  agentReply(text: string): void {
    if (text.trim()) this.print(`  agent  › ${gist(text, 110)}`);
  }

  usage(tokens: number | null, window: number, compacted: boolean): void {
    const label = compacted ? "context at the last reply (before the compaction)" : "context after turn";
    if (tokens === null) this.print(`  ${label}: unknown (no usage reported)`);
    else this.print(`  ${label}: ${pct(tokens, window)} (${k(tokens)}/${k(window)} tokens, session usage)`);
  }

  checkpoint(cp: Checkpoint, path: string, sizeTokens: number): void {
    const u = cp.meta.token_usage;
    this.print(
      `  ✎ checkpoint ${cp.meta.checkpoint_id} written  trigger=${cp.meta.trigger}  size=${sizeTokens} tokens  ` +
        `at ${Math.round(u.utilization * 100)}% (${k(u.input_tokens)}/${k(u.context_window)})  compactions=${cp.meta.compaction_count}`,
    );
    this.print(`      ${relative(this.stateDir, path)}`);
    // what filled the window, once: at the first 80% checkpoint that recorded it (issue 27)
    const b = cp.meta.breakdown;
    if (b && cp.meta.trigger === "auto-80pct" && !this.breakdownShown) {
      this.breakdownShown = true;
      this.print("      what fills the window (the checkpoint's meta.breakdown; /context in pi, status --breakdown):");
      this.print(`      ${breakdownBar(b, u.context_window)}`);
      for (const l of breakdownTable(b, u.context_window)) this.print(`      ${l}`);
    }
  }
  private breakdownShown = false;

  compaction(
    trigger: string,
    before: number,
    after: number | null,
    restore: { tokens: number; checkpoint: Checkpoint } | null,
    done?: { summaryText: string; compactionMs: number },
  ): void {
    const afterText = after === null ? "after: reported with the next reply" : `after: ${k(after)} tokens`;
    this.print(`  ⇣ compaction (${trigger}): before: ${k(before)} tokens, ${afterText}${done ? `, ${done.compactionMs.toFixed(0)} ms` : ""}`);
    if (done && done.summaryText.startsWith(COMPACTION_SUMMARY_HEADER)) {
      this.print(`      checkpoint compaction: the summary is the checkpoint (${Math.ceil(done.summaryText.length / 4)} tokens, no model call); no restore block follows`);
      for (const line of done.summaryText.split("\n").slice(3, 9)) this.print(`        ${line.length > 150 ? `${line.slice(0, 149)}…` : line}`);
    } else if (restore) {
      this.print(
        `      restore block from ${restore.checkpoint.meta.checkpoint_id} (${restore.tokens} tokens) queued as a system event for the next message`,
      );
    } else if (!done?.summaryText.startsWith(COMPACTION_SUMMARY_HEADER)) this.print("      no restore block (no compaction checkpoint of this session)");
  }

  resume(checkpointId: string, tokens: number): void {
    this.print(`  ⟲ resume block from ${checkpointId} (${tokens} tokens) queued for the first message of the new session`);
  }

  newSession(sessionId: string): void {
    this.print(`  new session id ${sessionId} on the same key`);
  }

  note(text: string): void {
    this.print(`  ${text}`);
  }
}
