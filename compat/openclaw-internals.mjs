// OpenClaw's plugin loader and context-engine registry are not public SDK entry points. Its
// published dist keeps `//#region src/<file>.ts` markers, so this finds the chunk that holds a
// source file and maps that chunk's minified export names back to the source names.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const OPENCLAW_ROOT = join(dirname(fileURLToPath(import.meta.url)), "node_modules", "openclaw");
export const OPENCLAW_VERSION = JSON.parse(readFileSync(join(OPENCLAW_ROOT, "package.json"), "utf8")).version;
const DIST = join(OPENCLAW_ROOT, "dist");

let chunks;
function listChunks() {
  chunks ??= readdirSync(DIST).filter((f) => f.endsWith(".mjs") || f.endsWith(".js"));
  return chunks;
}

/** The named exports of the dist chunk that defines `sourceFile`, by their source names. */
export async function importSourceFile(sourceFile, names) {
  const marker = `//#region ${sourceFile}\n`;
  for (const f of listChunks()) {
    const text = readFileSync(join(DIST, f), "utf8");
    if (!text.includes(marker)) continue;
    const block = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(text.trimEnd());
    if (!block) continue;
    const map = new Map();
    for (const part of block[1].split(",")) {
      const [local, exported] = part.trim().split(/\s+as\s+/);
      if (local) map.set(local, exported ?? local);
    }
    if (!names.every((n) => map.has(n))) continue;
    const mod = await import(pathToFileURL(join(DIST, f)).href);
    return Object.fromEntries(names.map((n) => [n, mod[map.get(n)]]));
  }
  throw new Error(`openclaw@${OPENCLAW_VERSION}: no dist chunk exports ${names.join(", ")} from ${sourceFile}`);
}
