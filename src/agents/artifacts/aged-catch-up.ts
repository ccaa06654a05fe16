/**
 * Aged offload's catch-up: results and calls never seen at tool_result time (a resumed session,
 * the plugin route) are judged and stashed once, off the request path.
 */
import type { ToolResultLike } from "./offload.js";
import { withBatchedRefs } from "./store.js";

/** Items judged per event-loop turn (by count, not time: what ages must not depend on load). */
const CATCH_UP_SLICE = 8;

export type QueuedResult = ToolResultLike & { toolCallId: string };
export type QueuedCall = { toolName: string; toolCallId: string; input: unknown };

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

  /** Judges the queue; `sliced` (scheduled): CATCH_UP_SLICE at a time, so a gateway's other chats run. */
  run(sliced = false): void {
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
