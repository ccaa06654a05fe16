/**
 * `pi install /path/to/clone` as the README says, the way a user does it: a clone of the
 * repository (the committed files, no dist/), its dependencies installed, no build step; pi
 * records the path and must load the extension through the `pi` manifest (pi-extension.js: the
 * TypeScript source when dist/ is absent). Before, pi reported "Installed" and loaded nothing.
 * Heavy (git clone + a real pi run): `npm run test:heavy`.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, run } from "../cli/run.js";
import { expectPiInstallLoads } from "./pi-install-check.js";
import { CHILD_TIMEOUT_MS, TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const HEAVY = process.env.VITEST_HEAVY === "1";

describe.skipIf(!HEAVY)("pi install from a clone (no build)", () => {
  const root = mkdtempSync(join(tmpdir(), "cm-clone-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("loads the extension: the gauge reaches the model and a checkpoint is written", async () => {
    const clone = join(root, "clone");
    const cloned = await run("git", ["clone", "--quiet", "--no-hardlinks", REPO, clone], { timeoutMs: CHILD_TIMEOUT_MS });
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(existsSync(join(clone, "dist"))).toBe(false);
    // `npm ci` in the clone: the same dependency tree, linked instead of downloaded again
    symlinkSync(join(REPO, "node_modules"), join(clone, "node_modules"));
    await expectPiInstallLoads(root, clone);
  }, 3 * TEST_TIMEOUT_MS);
});
