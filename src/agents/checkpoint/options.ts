import { nodeFsOps, type FsOps } from "../../infra/fs-ops.js";
import { checkpointSessionDir } from "../../infra/session-dir.js";

export interface CheckpointStoreOptions {
  /** root of OpenClaw state (`~/.openclaw` or OPENCLAW_STATE_DIR) */
  stateDir: string;
  /** checkpoints kept per session key (default 5, spec §5.5) */
  retention?: number;
  /** file-system layer (tests inject faults here) */
  fs?: FsOps | undefined;
}

export const DEFAULT_RETENTION = 5;

export function fsOf(opts: { fs?: FsOps | undefined }): FsOps {
  return opts.fs ?? nodeFsOps;
}

export function sessionDirOf(opts: CheckpointStoreOptions, sessionKey: string): string {
  return checkpointSessionDir(opts.stateDir, sessionKey);
}

export function retentionOf(opts: CheckpointStoreOptions): number {
  const n = opts.retention ?? DEFAULT_RETENTION;
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`checkpoint retention must be an integer >= 1, got ${n}`);
  return n;
}
