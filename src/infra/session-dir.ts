/**
 * Session key -> `<readable [A-Za-z0-9_-] prefix>-<16 hex of sha256>`: the hash keeps apart keys that
 * sanitize alike; no ".", no reserved device name, at most 57 chars.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { canonicalSessionKey } from "./session-key.js";

const PREFIX_MAX = 40;
const HASH_HEX_CHARS = 16;

export function sessionDirName(sessionKey: string): string {
  let prefix = sessionKey.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, PREFIX_MAX);
  prefix = prefix.replace(/^-/, "_");
  if (prefix.replace(/_/g, "") === "") prefix = "session";
  const hash = createHash("sha256").update(canonicalSessionKey(sessionKey), "utf8").digest("hex");
  return `${prefix}-${hash.slice(0, HASH_HEX_CHARS)}`;
}

/** `<stateDir>/context/checkpoints` */
export function checkpointsRoot(stateDir: string): string {
  return path.join(stateDir, "context", "checkpoints");
}

/** `<stateDir>/context/checkpoints/<sessionDirName(key)>` */
export function checkpointSessionDir(stateDir: string, sessionKey: string): string {
  return path.join(checkpointsRoot(stateDir), sessionDirName(sessionKey));
}

/** `<stateDir>/context/state/<sessionDirName(key)>` */
export function stateSessionDir(stateDir: string, sessionKey: string): string {
  return path.join(stateDir, "context", "state", sessionDirName(sessionKey));
}
