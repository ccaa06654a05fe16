/**
 * A compaction as every host route hands it to the engine: pi's `session_before_compact` event
 * has this shape; the plugin's routes build one from their messages, without a preparation.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

export interface CompactionInput {
  /** the session branch up to the compaction: its messages not captured yet are captured first */
  branchEntries: ReadonlyArray<{ type: string; message?: unknown }>;
  preparation: CompactionPreparation;
}

export interface CompactionPreparation {
  /** the context's tokens before the compaction (the checkpoint's reading) */
  tokensBefore: number;
  /** the span the host's summarizer is given, and a split turn's prefix: archived with the checkpoint */
  messagesToSummarize?: readonly AgentMessage[];
  turnPrefixMessages?: readonly AgentMessage[];
  /** the files the host saw read, written and edited in the span (else the captured tool calls name them) */
  fileOps?: { read: Iterable<string>; written: Iterable<string>; edited: Iterable<string> };
  /** pi: the first entry its compaction keeps, and the previous compaction's summary */
  firstKeptEntryId?: string;
  previousSummary?: string;
}

/** A compaction of `branchEntries` with no summarizer preparation (no span, no split turn, no file lists). */
export function compactionWithoutPreparation(branchEntries: ReadonlyArray<{ type: string; message?: unknown }>, tokensBefore: number): CompactionInput {
  return { branchEntries, preparation: { tokensBefore } };
}

/** The messages of the branch, in order. */
export function branchMessagesOf(input: CompactionInput): AgentMessage[] {
  return input.branchEntries.flatMap((e) => (e.type === "message" && e.message ? [e.message as AgentMessage] : []));
}

/** The messages the host's summarizer is about to summarize (the split turn's prefix included). */
export function compactedSpanOf(input: CompactionInput): AgentMessage[] {
  const p = input.preparation;
  return [...(p.messagesToSummarize ?? []), ...(p.turnPrefixMessages ?? [])];
}
