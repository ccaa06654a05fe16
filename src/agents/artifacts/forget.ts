/**
 * The right to forget, for artifacts (issue 28): remove one by handle, and find what only one session
 * key names, so `forget <key>` removes nothing another key still names.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { checkpointsRoot, sessionDirName } from "../../infra/session-dir.js";
import { filesUnder, handlesIn } from "./gc.js";
import { formatHandle, parseHandle } from "./handle.js";
import { blobPath, dropFromRefs, metaPath, readdirOrEmpty, refsDir, removeArtifact } from "./store.js";

/** The roots with a directory per key (the archive's spelled here: archive/ imports artifacts/). */
const keyRoots = (stateDir: string): string[] =>
  [checkpointsRoot(stateDir), path.join(stateDir, "context", "state"), path.join(stateDir, "context", "archive")];

/** Every place that can name an artifact for one key directory. */
async function placesOf(stateDir: string, dirName: string): Promise<string[]> {
  const places = [path.join(refsDir(stateDir), `${dirName}.log`)];
  for (const root of keyRoots(stateDir)) places.push(...(await filesUnder(path.join(root, dirName))));
  return places;
}

function keyDirs(stateDir: string): Set<string> {
  const dirs = new Set<string>();
  for (const root of keyRoots(stateDir)) {
    for (const n of readdirOrEmpty(root)) if (!n.startsWith(".")) dirs.add(n);
  }
  for (const n of readdirOrEmpty(refsDir(stateDir))) if (n.endsWith(".log")) dirs.add(n.slice(0, -4));
  return dirs;
}

export interface KeyArtifacts {
  /** digests only this key names: forgetting the key removes them */
  own: string[];
  /** digests this key names that another key names too: kept */
  shared: string[];
}

export async function artifactsOfKey(stateDir: string, sessionKey: string): Promise<KeyArtifacts> {
  const mine = sessionDirName(sessionKey);
  const named = new Set<string>();
  await handlesIn(await placesOf(stateDir, mine), named);
  const others = new Set<string>();
  for (const d of keyDirs(stateDir)) if (d !== mine) await handlesIn(await placesOf(stateDir, d), others);
  const own: string[] = [];
  const shared: string[] = [];
  for (const hex of [...named].sort()) if (existsSync(blobPath(stateDir, hex))) (others.has(hex) ? shared : own).push(hex);
  return { own, shared };
}

export function artifactBytes(stateDir: string, hex: string): number {
  let n = 0;
  for (const f of [blobPath(stateDir, hex), metaPath(stateDir, hex)]) {
    try {
      n += statSync(f).size;
    } catch {
      // gone
    }
  }
  return n;
}

export interface ArtifactRmReceipt {
  handle: string;
  removed: boolean;
  bytes: number;
  dryRun: boolean;
}

/** `artifact rm <handle>`: blob, meta and refs lines. Throws ArtifactHandleError on a bad handle. */
export function removeArtifactByHandle(stateDir: string, handle: string, opts: { dryRun?: boolean } = {}): ArtifactRmReceipt {
  const hex = parseHandle(handle);
  const bytes = artifactBytes(stateDir, hex);
  const receipt: ArtifactRmReceipt = { handle: formatHandle(hex), removed: bytes > 0, bytes, dryRun: opts.dryRun === true };
  if (!receipt.dryRun && receipt.removed) {
    removeArtifact(stateDir, hex);
    dropFromRefs(stateDir, new Set([hex]));
  }
  return receipt;
}
