/**
 * Session key -> directory name. Session keys are host-controlled strings ("telegram:user123",
 * "agent:main:subagent:…") and may hold anything, so the name is
 *   <readable prefix>-<16 hex of sha256(raw key)>
 * - prefix: [A-Za-z0-9_-] only (runs of other characters become "_"), at most 40 chars,
 *   "session" when nothing readable is left, never starting with "-";
 * - the hash makes keys that sanitize alike ("a:b", "a/b", "a_b") land in different directories;
 *   it is taken over the UTF-8 of canonicalSessionKey(key) (session-key.ts): an injective map to
 *   well-formed text, so keys that are not well-formed UTF-16 (`x\uD800`, `x\uDC00`) never share a
 *   directory with each other or with `x\uFFFD`; ordinary keys map to themselves.
 * The result never contains "." (so never "." / ".."), has no trailing dot/space, cannot be a
 * Windows reserved device name (CON, NUL, COM1: the hash suffix is always there) and is at most
 * 57 characters.
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
