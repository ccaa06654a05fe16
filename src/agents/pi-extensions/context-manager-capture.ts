/**
 * What the extension needs from a pi ctx, read while the event runs. pi invalidates a ctx
 * when its session is replaced or disposed (print mode disposes the session while a threshold
 * compaction is still finishing, so `session_before_compact` / `session_compact` can arrive
 * with a stale ctx whose getters throw). Handlers therefore never keep a ctx: each live event
 * refreshes these plain values, and a stale ctx falls back to the last values captured.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";

export type ReadonlySessionManager = ExtensionContext["sessionManager"];
import { debugLog } from "../../infra/debug-log.js";

export interface CapturedSession {
  sessionManager: ReadonlySessionManager;
  cwd: string;
  /** the model's context window at the last live event, 0 when unknown */
  contextWindow: number;
}

export class SessionCapture {
  private last: CapturedSession | null = null;

  /** Fresh values from a live ctx, else those of the last live event (null before any). */
  from(ctx: ExtensionContext, event: string): CapturedSession | null {
    try {
      const sessionManager = ctx.sessionManager;
      const cwd = ctx.cwd;
      let contextWindow = 0;
      try {
        contextWindow = ctx.model?.contextWindow ?? 0;
      } catch {
        contextWindow = this.last?.contextWindow ?? 0;
      }
      this.last = { sessionManager, cwd, contextWindow };
      return this.last;
    } catch (e) {
      debugLog(`${event}: ctx is stale, using the values captured at the last live event`, e);
      return this.last;
    }
  }

  get current(): CapturedSession | null {
    return this.last;
  }
}
