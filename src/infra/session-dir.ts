/**
 * Where a session's files live: the state dir, session keys as the store can hold them, and the
 * directory of a key. UTF-8 turns a lone surrogate into U+FFFD, so `x\uD800`, `x\uDC00` and
 * `x\uFFFD` would share a directory: `canonicalSessionKey` is injective onto well-formed strings (a
 * lone surrogate becomes `\uFFFD{xxxx}`, a U+FFFD before `{` becomes `\uFFFD{fffd}`) and leaves every
 * ordinary key as it is. No Pi SDK import: the CLI uses it.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";

/** OPENCLAW_STATE_DIR, else ~/.openclaw (OpenClaw's state dir, shared by the pi extension, the plugin and the CLI). */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_STATE_DIR?.trim() ? path.resolve(env.OPENCLAW_STATE_DIR) : path.join(homedir(), ".openclaw");
}

const NEEDS_ESCAPE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd(?=\{)/g;

export function canonicalSessionKey(key: string): string {
  return key.replace(NEEDS_ESCAPE, (c) => `\ufffd{${c.charCodeAt(0).toString(16).padStart(4, "0")}}`);
}

/** The host's session key when it is a non-blank string (anything else costs the host a log line, not a throw). */
export function hostSessionKey(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** What a key that is not one is, for the log line ("null", "undefined", "a number", "an object", "an empty string"). */
export function describeBadKey(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return "an empty string";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Session key -> `<readable [A-Za-z0-9_-] prefix>-<16 hex of sha256>`: the hash keeps apart keys that
 * sanitize alike; no ".", no reserved device name, at most 57 chars.
 */
const PREFIX_MAX = 40;
const HASH_HEX_CHARS = 16;

export function sessionDirName(sessionKey: string): string {
  let prefix = sessionKey.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, PREFIX_MAX).replace(/^-/, "_");
  if (prefix.replace(/_/g, "") === "") prefix = "session";
  const hash = createHash("sha256").update(canonicalSessionKey(sessionKey), "utf8").digest("hex");
  return `${prefix}-${hash.slice(0, HASH_HEX_CHARS)}`;
}

export const checkpointsRoot = (stateDir: string): string => path.join(stateDir, "context", "checkpoints");
export const checkpointSessionDir = (stateDir: string, sessionKey: string): string =>
  path.join(checkpointsRoot(stateDir), sessionDirName(sessionKey));
export const stateSessionDir = (stateDir: string, sessionKey: string): string =>
  path.join(stateDir, "context", "state", sessionDirName(sessionKey));
