#!/usr/bin/env node
// openclaw-context: runs the CLI from the built dist when present, else the TypeScript
// sources through tsx's API (works from a clean clone after `npm ci`, no build step).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(root, "dist", "cli", "main.js");

async function load() {
  if (existsSync(built)) return import(pathToFileURL(built).href);
  let tsImport;
  try {
    ({ tsImport } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write("openclaw-context: needs either a build (npm run build) or the tsx package (npm ci)\n");
    process.exit(1);
  }
  return tsImport(pathToFileURL(join(root, "src", "cli", "main.ts")).href, import.meta.url);
}

const { runCliProcess } = await load();
process.exitCode = await runCliProcess(process.argv.slice(2));
