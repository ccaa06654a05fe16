// The `pi` manifest's entry (package.json "pi.extensions"), loaded by pi's TypeScript loader:
// the built extension when dist/ exists (the published package, a built clone), else the
// TypeScript source (a clone after `npm ci`, no build step), as `pi -e file.ts` loads it.
// `pi install /path/to/clone` runs no install script, so the entry must work either way.
import { existsSync } from "node:fs";

const BUILT = new URL("./dist/agents/pi-extensions/context-manager.js", import.meta.url);

export default async function contextManagerPiExtension(pi: unknown): Promise<void> {
  const mod = existsSync(BUILT) ? await import(BUILT.href) : await import("./src/agents/pi-extensions/context-manager.ts");
  return mod.default(pi);
}
