/**
 * What a capture writes into: the accumulators (CapturedState), the texts whose gists wait for
 * the pass's end (DeferredGists), and which state files changed since the last flush. Shared by
 * the tool-result capture, the message pass and its settling, and ContextState's persistence.
 */
import type { LastToolCall } from "../checkpoint/schema.js";
import type { OnceLogger } from "../../infra/log-once.js";
import { type CaptureCaps, CapturedState } from "./captured-state.js";
import { DeferredGists } from "./deferred-gists.js";
import type { StateFileName } from "./state-files.js";

export class CaptureTarget {
  /** the accumulators, one group per state file */
  readonly acc: CapturedState;
  /** texts not gisted yet: settled at the end of each capture pass (state/deferred-gists.ts) */
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

  touchTool(tool: string): void {
    if (this.acc.resources.touchTool(tool)) this.mark("resources");
  }

  touchFile(p: string, access: "read" | "modified"): void {
    if (this.acc.resources.touchFile(p, access)) this.mark("resources");
  }

  openItem(key: string, text: string): void {
    if (this.acc.items.openItem(key, text)) this.mark("open_items");
  }

  closeItem(key: string): void {
    if (this.acc.items.closeItem(key)) this.mark("open_items");
  }

  /** A call whose summary is taken when the pass ends (pass-settle.ts settleCall). */
  deferCall<T extends LastToolCall>(entry: T, name: string, args: unknown): T {
    this.deferred.calls.set(entry, { name, args });
    return entry;
  }
}
