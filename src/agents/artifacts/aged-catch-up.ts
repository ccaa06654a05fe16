/**
 * Aged offload's catch-up (aged-offload.ts): results and calls this process never saw at
 * tool_result time (a resumed session, the plugin route) are judged and stashed once, off the
 * request path, and age from the next request on.
 */
import type { ToolResultLike } from "./offload.js";
import { withBatchedRefs } from "./store.js";

/**
 * Results and calls a scheduled catch-up judges before it lets the event loop run (by count, not
 * time, so what has aged after a given request does not depend on the machine's load).
 */
const CATCH_UP_SLICE = 8;

export type QueuedResult = ToolResultLike & { toolCallId: string };
export type QueuedCall = { toolName: string; toolCallId: string; input: unknown };

/** What judges a queued item (throws on I/O errors) and where failures go. */
export interface CatchUpJudge {
  result(r: QueuedResult): void;
  call(c: QueuedCall): void;
  onError(e: unknown): void;
}

export class CatchUpQueue {
  private results: QueuedResult[] = [];
  private calls: QueuedCall[] = [];
  private scheduled = false;

  constructor(private readonly judge: CatchUpJudge) {}

  pushResult(r: QueuedResult): void {
    this.results.push(r);
    this.schedule();
  }

  pushCall(c: QueuedCall): void {
    this.calls.push(c);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run(true));
  }

  /**
   * Judges the queued results and calls. From the event loop (a scheduled catch-up) it stops after
   * CATCH_UP_SLICE of them and schedules the rest, so a turn with many large outputs never holds
   * up the other chats of a gateway for long (issue 24); session start runs it to the end.
   */
  run(sliced = false): void {
    // the refs lines of the slice's stashes in one append per log (store.ts withBatchedRefs)
    withBatchedRefs(() => this.slice(sliced), (e) => this.judge.onError(e));
  }

  private slice(sliced: boolean): void {
    let done = 0;
    this.scheduled = false;
    while (this.results.length > 0 || this.calls.length > 0) {
      if (sliced && done++ >= CATCH_UP_SLICE) {
        this.schedule();
        return;
      }
      const c = this.calls.shift();
      try {
        if (c) this.judge.call(c);
        else this.judge.result(this.results.shift()!);
      } catch (e) {
        this.judge.onError(e);
      }
    }
  }
}
