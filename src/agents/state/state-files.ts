/**
 * The state files' envelope `{ version: 1, session_id, session_key, updated_at, data }` and the
 * "move aside" rule for files that must not be merged (another session, already checkpointed, invalid).
 */
import path from "node:path";
import { ensurePrivateDir, writeFileAtomic } from "../../infra/atomic-file.js";
import { errorCode, type FsOps, makeDirs } from "../../infra/fs-ops.js";
import { FileTooLargeError, NotAFileError, readTextCapped } from "../../infra/regular-file.js";
import { STATE_FILE_NAMES } from "../checkpoint/schema.js";
export { STATE_FILE_NAMES } from "../checkpoint/schema.js";

const STATE_FILE_VERSION = 1 as const;
export type StateFileName = (typeof STATE_FILE_NAMES)[number];
const STALE_KEEP_PER_NAME = 3;
/** far above what the capped state holds (kilobytes): a larger file is moved aside unread */
const MAX_STATE_FILE_BYTES = 16 * 2 ** 20;

interface StateEnvelope {
  version: typeof STATE_FILE_VERSION;
  session_id: string | null;
  session_key: string;
  updated_at: string;
  data: unknown;
}

/** Thrown by data validators; the message names the field. */
export class StateDataError extends Error {}

type LoadedFile = { kind: "missing" } | Stale | { kind: "ok"; data: unknown; updatedAt: string; sessionId: Id };
type Id = string | null;
type Stale = { kind: "stale"; reason: string };
export type LoadExpectations = { sessionKey: string; sessionId: string | null; latestCheckpointAt: string | null };

export function stateFilePath(dir: string, name: StateFileName): string {
  return path.join(dir, `${name}.json`);
}

/** One state file as read (never throws), not yet judged: the previous-session check and the load judge one read. */
export type StateFileRead = { kind: "missing" } | Stale | { kind: "envelope"; env: Partial<StateEnvelope> };

export async function readStateEnvelope(fs: FsOps, file: string): Promise<StateFileRead> {
  let text: string;
  try {
    text = await readTextCapped(fs, file, MAX_STATE_FILE_BYTES);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return { kind: "missing" };
    if (err instanceof FileTooLargeError || err instanceof NotAFileError) return { kind: "stale", reason: err.message };
    return { kind: "stale", reason: `unreadable: ${errorCode(err) ?? String(err)}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "stale", reason: text.trim() === "" ? "empty file" : "invalid JSON (truncated?)" };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { kind: "stale", reason: "not an object" };
  return { kind: "envelope", env: parsed as Partial<StateEnvelope> };
}

/** May this read be merged under `exp`. */
export function judgeStateFile(read: StateFileRead, exp: LoadExpectations): LoadedFile {
  if (read.kind !== "envelope") return read;
  const env = read.env;
  if (env.version !== STATE_FILE_VERSION) return { kind: "stale", reason: `unknown version ${JSON.stringify(env.version)}` };
  if (env.session_key !== exp.sessionKey) return { kind: "stale", reason: "another session key" };
  const fileSessionId = env.session_id ?? null;
  const updated = typeof env.updated_at === "string" ? Date.parse(env.updated_at) : Number.NaN;
  if (!Number.isFinite(updated)) return { kind: "stale", reason: "missing updated_at" };
  // age first: state a checkpoint already covers is stale whoever wrote it (a newer state file of
  // another session is a previous session's uncheckpointed work: state/previous-session.ts)
  if (exp.latestCheckpointAt) {
    const cp = Date.parse(exp.latestCheckpointAt);
    if (Number.isFinite(cp) && updated < cp) return { kind: "stale", reason: "older than the latest checkpoint" };
  }
  if (exp.sessionId !== null && fileSessionId !== exp.sessionId) {
    return { kind: "stale", reason: `another session (${fileSessionId ?? "none"})` };
  }
  if (!("data" in env)) return { kind: "stale", reason: "no data" };
  return { kind: "ok", data: env.data, updatedAt: env.updated_at as string, sessionId: fileSessionId };
}

/** The text of one state file: `data` in its envelope, JSON indented by one space, newline-terminated. */
export function stateFileText(sessionKey: string, sessionId: string | null, updatedAt: string, data: unknown): string {
  const env = { version: STATE_FILE_VERSION, session_id: sessionId, session_key: sessionKey, updated_at: updatedAt };
  return `${JSON.stringify({ ...env, data } satisfies StateEnvelope, null, 1)}\n`;
}

/** Atomic write of one state file; a vanished directory is recreated once, so capture resumes by itself. */
export async function writeStateFile(fs: FsOps, dir: string, name: StateFileName, text: string, durable: boolean) {
  const write = (): Promise<void> => writeFileAtomic(stateFilePath(dir, name), text, { fs, syncDir: false, durable });
  await write().catch(async (err: unknown) => {
    if (errorCode(err) !== "ENOENT") throw err;
    await ensurePrivateDir(dir, fs);
    await write();
  });
}

/** Windows-safe timestamp for file names: 20260224T153000123Z */
export const fileStamp = (d: Date): string => d.toISOString().replace(/[-:.]/g, "");

/** Moves `<dir>/<name>.json` to `<dir>/stale/<name>.<ts>.json`, keeping STALE_KEEP_PER_NAME copies; false on failure. */
export async function moveAside(fs: FsOps, dir: string, name: string, now: Date): Promise<boolean> {
  const staleDir = path.join(dir, "stale");
  const file = path.join(dir, `${name}.json`);
  try {
    await makeDirs(staleDir, 0o700, fs);
    const dest = await freePath(fs, (n) => path.join(staleDir, `${name}.${fileStamp(now)}${n}.json`));
    await fs.rename(file, dest);
  } catch {
    // cannot move it: delete it rather than merge it (a stale file must never be merged)
    return fs.unlink(file).then(() => true, () => false);
  }
  // pruning is housekeeping only; fixed-width stamps: lexical order is chronological
  const mine = (await fs.readdir(staleDir).catch(() => [] as string[])).filter((f) => f.startsWith(`${name}.`));
  const old = mine.filter((f) => f.endsWith(".json")).sort().slice(0, -STALE_KEEP_PER_NAME);
  for (const f of old) await fs.unlink(path.join(staleDir, f)).catch(() => undefined);
  return true;
}

/** The first of `at("")`, `at("-1")`, `at("-2")`… that does not exist (names stamped to the ms can still meet). */
export async function freePath(fs: FsOps, at: (suffix: string) => string): Promise<string> {
  let dest = at("");
  const exists = (p: string): Promise<boolean> => fs.stat(p).then(() => true, () => false);
  for (let i = 1; await exists(dest); i++) dest = at(`-${i}`);
  return dest;
}

// ---- validators for the data part: the value, or a StateDataError naming the field

export type Check<T> = (v: unknown, field: string) => T;

const expect =
  <T>(what: string, ok: (v: unknown) => boolean): Check<T> =>
  (v, field) => {
    if (!ok(v)) throw new StateDataError(`${field}: expected ${what}`);
    return v as T;
  };

const isObject = (v: unknown): boolean => !!v && typeof v === "object" && !Array.isArray(v);
export const asObject = expect<Record<string, unknown>>("an object", isObject);
export const asString = expect<string>("a string", (v) => typeof v === "string");
export const asNumber = expect<number>("a number", (v) => typeof v === "number" && Number.isFinite(v));
export const asBoolean = expect<boolean>("a boolean", (v) => typeof v === "boolean");
export const asArray = expect<unknown[]>("an array", Array.isArray);

export const orNull =
  <T>(check: Check<T>): Check<T | null> =>
  (v, f) =>
    v === null || v === undefined ? null : check(v, f);

export const asStringOrNull = orNull(asString);
export const isTrue = (v: unknown): boolean => v === true;

/** A list whose items `check` reads, named `field[i]`. */
export function asList<T>(v: unknown, field: string, check: Check<T>): T[] {
  return asArray(v, field).map((x, i) => check(x, `${field}[${i}]`));
}

export const asStringArray = (v: unknown, field: string): string[] => asList(v, field, asString);

/** One of `values` (a string first), else `${field}: ${what}`. */
export const oneOf =
  <const V extends string>(values: readonly V[], what: string): Check<V> =>
  (v, field) => {
    const s = asString(v, field);
    if (!(values as readonly string[]).includes(s)) throw new StateDataError(`${field}: ${what}`);
    return s as V;
  };

type Shape = Record<string, Check<unknown>>;
export type Fields<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> };

/** An object read key by key in `shape`'s order (errors name `field.key`; `key` at the root); undefined left out. */
export function asFields<S extends Shape>(v: unknown, field: string, shape: S): Fields<S> {
  const o = asObject(v, field);
  const out: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(shape)) {
    const value = check(o[key], field ? `${field}.${key}` : key);
    if (value !== undefined) out[key] = value;
  }
  return out as Fields<S>;
}

/** `shape`'s object (asFields) as a check, and a list of them. */
export const record =
  <S extends Shape>(shape: S): Check<Fields<S>> =>
  (v, f) =>
    asFields(v, f, shape);
export const records =
  <S extends Shape>(shape: S): Check<Array<Fields<S>>> =>
  (v, f) =>
    asList(v, f, record(shape));
