/** OpenClaw's state dir, shared by the pi extension, the OpenClaw plugin and the CLI (no Pi SDK import). */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** OPENCLAW_STATE_DIR, else ~/.openclaw. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_STATE_DIR?.trim() ? resolve(env.OPENCLAW_STATE_DIR) : join(homedir(), ".openclaw");
}
