// The `pi` manifest's entry (package.json "pi.extensions"): the built extension when dist/ exists
// (the published package, a built clone), else its TypeScript source, which pi loads through its
// own TypeScript loader as it does for `pi -e file.ts` (a clone after `npm ci`, no build step).
// `pi install /path/to/clone` runs no install script, so the entry must work either way.
import { existsSync } from "node:fs";

const BUILT = new URL("./dist/agents/pi-extensions/context-manager.js", import.meta.url);

export default async function contextManagerPiExtension(pi) {
  const mod = existsSync(BUILT) ? await import(BUILT.href) : await import("./src/agents/pi-extensions/context-manager.ts");
  return mod.default(pi);
}
