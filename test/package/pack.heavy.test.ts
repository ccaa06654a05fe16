/**
 * The package as a user gets it: `npm pack` (prepack builds dist/) from a copy of the repo,
 * installed into an empty project with plain `npm install` (the pi peers are optional: not installed): the store API, the CLI entry and
 * the bin work under plain Node; with pi present (the host's copy) the OpenClaw seams, the pi
 * extension and the root entry import; and `pi install <path>` loads the built extension through
 * the package's `pi` manifest. Heavy (a tsc build and an npm install): `npm run test:heavy`.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { REPO, run } from "../cli/run.js";
import { expectPiInstallLoads } from "./pi-install-check.js";
import { CHILD_TIMEOUT_MS, TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

async function du(dir: string): Promise<number> {
  const r = await run("du", ["-sk", dir]);
  return Number(r.stdout.split(/\s/)[0]) * 1024;
}

describe("npm pack → install into an empty project", () => {
  let root = "";
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("builds dist on pack; store, CLI and bin work without pi; seams and extension import with pi; pi install loads it", async () => {
    root = await mkdtemp(join(tmpdir(), "cm-pack-"));
    // pack from a copy: prepack's build must not leave a dist/ in the working tree (the bin would prefer it)
    const copy = join(root, "repo");
    mkdirSync(copy);
    for (const f of ["src", "bin", "docs", "scripts", "package.json", "openclaw.plugin.json", "pi-extension.ts", "README.md", "tsconfig.json", "tsconfig.build.json"]) cpSync(join(REPO, f), join(copy, f), { recursive: true });
    symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"), "dir");
    // prepack: tsc and the plugin bundle (205 s at load 20 on 2 cores)
    const packed = await run(NPM, ["pack", "--json", "--pack-destination", root], { cwd: copy, timeoutMs: 5 * CHILD_TIMEOUT_MS });
    expect(packed.code, packed.stderr).toBe(0);
    const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    const files = info[0]!.files.map((f) => f.path);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    for (const entry of Object.values(pkg.exports as Record<string, { import?: string; types?: string } | string>)) {
      const paths = typeof entry === "string" ? [entry] : [entry.import!, entry.types!];
      for (const p of paths) expect(files, p).toContain(p.replace(/^\.\//, ""));
    }
    for (const ext of pkg.pi.extensions as string[]) expect(files).toContain(ext.replace(/^\.\//, ""));
    // the entry loads dist/ when it is there (always in a tarball): the built extension is packed
    expect(files).toContain("dist/agents/pi-extensions/context-manager.js");
    // the package root is the OpenClaw plugin: its manifest and the compiled entry
    expect(files).toContain("openclaw.plugin.json");
    for (const ext of pkg.openclaw.extensions as string[]) expect(files).toContain(ext.replace(/^\.\//, ""));
    // what runs only from a clone (demo, replay, faux model, host stand-ins), sources and maps are not shipped
    const clonesOnly = files.filter((f) => /^src\/|\.map$|^dist\/(demo|replay|faux|auto-reply|agents\/pi-embedded-runner)\/|compaction-safeguard|system-events/.test(f));
    expect(clonesOnly).toEqual([]);

    const project = join(root, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "probe", version: "1.0.0", type: "module", private: true }));
    // no flag: the pi packages are optional peers (peerDependenciesMeta), the host brings its own; npm installs no second pi
    const installed = await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", join(root, info[0]!.filename)], {
      cwd: project,
      timeoutMs: 3 * CHILD_TIMEOUT_MS,
    });
    expect(installed.code, installed.stderr).toBe(0);
    const nm = join(project, "node_modules");
    expect(existsSync(join(nm, "tsx"))).toBe(false);
    expect(existsSync(join(nm, "@mariozechner"))).toBe(false);
    const size = await du(nm);
    console.log(`install size without peers: ${(size / 1e6).toFixed(1)} MB (tarball ${(info[0]!.size / 1e6).toFixed(2)} MB)`);
    expect(size).toBeLessThan(20e6);

    // a checkpoint on disk, read through the installed store API and shown by the installed bin
    const stateDir = join(root, "state");
    const key = "agent:main:bench:cp"; // the sample's own key
    const dir = checkpointSessionDir(stateDir, key);
    mkdirSync(dir, { recursive: true });
    cpSync(join(REPO, "bench", "sample-checkpoint.yaml"), join(dir, "cp_330.yaml"));
    const script = `
      import { readLatestCheckpoint } from "openclaw-context-manager/store";
      import { runCli } from "openclaw-context-manager/cli";
      const cp = await readLatestCheckpoint({ stateDir: ${JSON.stringify(stateDir)} }, ${JSON.stringify(key)});
      console.log("store:", cp.meta.checkpoint_id, typeof runCli);
    `;
    const plain = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project });
    expect(plain.stderr).toBe("");
    expect(plain.stdout.trim()).toBe("store: cp_330 function");
    const bin = await run(join(nm, ".bin", "openclaw-context"), ["list", "--state-dir", stateDir], { cwd: project });
    expect(bin.code, bin.stderr).toBe(0);
    expect(bin.stdout).toContain("cp_330");

    // the OpenClaw plugin bundle imports without pi (OpenClaw installs no peers): Node built-ins only
    const bundle = join(nm, "openclaw-context-manager", "dist", "openclaw", "plugin.js");
    const specifiers = [...readFileSync(bundle, "utf8").matchAll(/\bfrom\s*"([^"]+)"|\bimport\s*\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? m[2]);
    expect(specifiers.filter((s) => !s!.startsWith("node:") && !s!.startsWith("openclaw/"))).toEqual([]);
    const plugin = await run(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(bundle)}); console.log(m.default.id, typeof m.default.register);`], { cwd: project });
    expect(plugin.stderr).toBe("");
    expect(plugin.stdout.trim()).toBe("context-manager function");

    // with the host's pi packages present, every other entry imports
    symlinkSync(join(REPO, "node_modules", "@mariozechner"), join(nm, "@mariozechner"), "dir");
    for (const dep of ["@sinclair", "typebox"]) if (existsSync(join(REPO, "node_modules", dep)) && !existsSync(join(nm, dep))) symlinkSync(join(REPO, "node_modules", dep), join(nm, dep), "dir");
    const withPi = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const a = await import("openclaw-context-manager/openclaw");
         const b = await import("openclaw-context-manager/pi-extension");
         const c = await import("openclaw-context-manager");
         console.log(typeof a.buildContextManagerExtensionFactories, typeof a.writeCompactionCheckpoint, typeof a.onCompactionCompleted, typeof b.default, typeof c.writeCheckpoint);`,
      ],
      { cwd: project, env: { ...process.env, NODE_PATH: join(REPO, "node_modules") } },
    );
    expect(withPi.stderr).toBe("");
    expect(withPi.stdout.trim()).toBe("function function function function function");

    // pi install <path>: pi records the package and loads dist/ through the `pi` manifest
    await expectPiInstallLoads(root, join(nm, "openclaw-context-manager"));
  }, 5 * TEST_TIMEOUT_MS);
});
