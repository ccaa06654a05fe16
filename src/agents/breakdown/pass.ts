/**
 * The breakdown's one pass over a request's messages (what it costs per request, issue 27): every
 * message is read as it is now (a host may have cut a result or rewritten a call since the last
 * request), counted by measure.ts's measureMessage. The host hands each request fresh copies of
 * its messages, so the pass's cost is reading them: no Set lookup per message (which message
 * aging swapped is found by walking the sent array alongside), the five largest kept without
 * sorting.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { CallSizes } from "./call-sizes.js";
import { measureMessage, type Tally } from "./measure.js";

export interface ItemAt {
  index: number;
  chars: number;
  /** measured by the last reply's usage (scaled) rather than estimated */
  inPrefix: boolean;
  /** the message is aged offload's swap */
  aged: boolean;
}

const TOP = 5;
/** Positions of the sent array looked ahead for a message of the final one (steps after aging dropped a few). */
const LOOKAHEAD = 8;

/** Misses (a message of `final` not in `sent`: the gauge line, a trim's stand-in) scanned for before a Set is built. */
const SCANNED_MISSES = 16;

/**
 * Which messages of `final` are aged offload's swaps: `sent` walked alongside (the steps after
 * aging drop, add and replace messages but never reorder them); a message not found there is
 * looked for in all of `sent` (a scan of pointers, then a Set when misses are many).
 */
export class AgedLookup {
  private j = 0;
  private misses = 0;
  private set: Set<AgentMessage> | null = null;
  constructor(
    private readonly sent: readonly AgentMessage[],
    private readonly flags: Uint8Array,
    private readonly count: number,
  ) {}

  isAged(m: AgentMessage): boolean {
    if (this.count === 0) return false;
    const sent = this.sent;
    const j = this.j;
    if (j < sent.length && sent[j] === m) {
      this.j = j + 1;
      return this.flags[j] === 1;
    }
    for (let k = j + 1; k < sent.length && k <= j + LOOKAHEAD; k++) {
      if (sent[k] !== m) continue;
      this.j = k + 1;
      return this.flags[k] === 1;
    }
    if (this.set === null && ++this.misses <= SCANNED_MISSES) {
      const k = sent.indexOf(m);
      return k >= 0 && this.flags[k] === 1;
    }
    if (this.set === null) {
      this.set = new Set();
      for (let k = 0; k < sent.length; k++) if (this.flags[k] === 1) this.set.add(sent[k]!);
    }
    return this.set.has(m);
  }
}

/**
 * Measures every message in order: up to `measured` into `prefix`, the rest into `trailing`;
 * returns the five largest, largest first.
 */
export function measurePass(messages: readonly AgentMessage[], aged: AgedLookup, measured: number, prefix: Tally, trailing: Tally, calls: CallSizes | undefined): ItemAt[] {
  const top: ItemAt[] = [];
  let smallest = 0;
  calls?.begin();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const isAged = aged.isAged(m);
    const chars = measureMessage(m, isAged, i <= measured ? prefix : trailing, calls);
    if (chars <= 0 || (top.length === TOP && chars <= smallest)) continue;
    // insert in order (largest first), keep five
    let at = top.length;
    while (at > 0 && top[at - 1]!.chars < chars) at--;
    top.splice(at, 0, { index: i, chars, inPrefix: i <= measured, aged: isAged });
    if (top.length > TOP) top.pop();
    smallest = top[top.length - 1]!.chars;
  }
  calls?.end();
  return top;
}
