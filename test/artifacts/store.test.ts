/** The store on real files: content addressing, permissions, metadata without content, no secret on disk. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import {
  ArtifactCorruptError,
  ArtifactNotFoundError,
  blobPath,
  metaPath,
  readArtifact,
  readArtifactMeta,
  refsPath,
  refsCache,
  stashArtifact,
  withBatchedRefs,
} from "../../src/agents/artifacts/store.js";
import { listArtifactDigests } from "../../src/agents/artifacts/gc.js";
import { applyCacheBudget, cacheBudgetBytes } from "../../src/agents/engine/cache-budget.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";

/** [line planted in the output, the secret part that must not reach disk] */
const PLANTED: Array<[string, string]> = [
  ["key=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
  ["token ghp_1234567890abcdefghijABCDEFGHIJ123456", "1234567890abcdefghijABCDEFGHIJ123456"],
  ["aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"],
  ["postgres://admin:hunter2hunter2@db.internal:5432/app", "hunter2hunter2"],
  ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"],
  ['"api_key": "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0"', "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0"],
];
const SECRETS = PLANTED.map(([line]) => line);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

describe("artifact store", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cm-art-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("stores content-addressed by full sha256 with 0600 files, and reads it back verified", async () => {
    const text = "line\n".repeat(3000);
    const { receipt } = stashArtifact(dir, { text, tool: "bash", sessionKey: "agent:main:x" });
    const hex = createHash("sha256").update(text).digest("hex");
    expect(receipt).toMatchObject({ schema: "openclaw-mem.artifact.stash.v1", handle: `ocm_artifact:v1:sha256:${hex}`, sha256: hex, bytes: text.length, kind: "tool_output", created: true });
    expect(receipt.meta).toEqual({ tool: "bash", sessionKey: "agent:main:x" });
    expect(blobPath(dir, hex)).toBe(join(dir, "context", "artifacts", "blobs", "sha256", hex.slice(0, 2), hex.slice(2, 4), `${hex}.txt`));
    for (const f of walk(join(dir, "context", "artifacts"))) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "context", "artifacts", "blobs")).mode & 0o777).toBe(0o700);
    expect(readArtifact(dir, receipt.handle)).toBe(text);
    expect(await listArtifactDigests(dir)).toEqual([hex]);
    // the same content again: same handle, not rewritten
    expect(stashArtifact(dir, { text }).receipt).toMatchObject({ handle: receipt.handle, created: false });
  });

  it("a batch of stashes writes the refs lines a stash at a time would, once per handle", () => {
    const texts = Array.from({ length: 6 }, (_, i) => `batched output ${i}\n`.repeat(200));
    const handles = (log: string) => readFileSync(log, "utf8").trim().split("\n").map((l) => l.split(" ")[1]);
    for (const key of ["agent:main:one", "agent:main:batched"]) {
      const stashAll = () => [...texts, texts[0]!].map((text) => stashArtifact(dir, { text, sessionKey: key }).receipt.sha256);
      const hexes = key.endsWith("batched") ? withBatchedRefs(stashAll, (e) => { throw e; }) : stashAll();
      expect(handles(refsPath(dir, key))).toEqual(hexes.slice(0, texts.length));
    }
    // an error inside the batch: the lines of the stashes before it are still written
    const key = "agent:main:throws";
    expect(() => withBatchedRefs(() => { stashArtifact(dir, { text: texts[1]!, sessionKey: key }); throw new Error("boom"); }, () => undefined)).toThrow("boom");
    expect(handles(refsPath(dir, key))).toHaveLength(1);
  });

  it("the refs logs' handles are held within their share of cacheMemoryMiB; an evicted key's log is read again, no handle logged twice", () => {
    applyCacheBudget({ cacheMemoryMiB: 16 });
    try {
      expect(refsCache().stats().budgetBytes).toBe(cacheBudgetBytes({ cacheMemoryMiB: 16 }, "artifactRefs"));
      // a share a few keys fill: 6 keys of 20 handles (~2.2 KB each held) against 5 KB
      const budget = 5_000;
      refsCache().setBudget(budget);
      const lines = (key: string) => readFileSync(refsPath(dir, key), "utf8").trim().split("\n").length;
      for (let k = 0; k < 6; k++) {
        for (let i = 0; i < 20; i++) stashArtifact(dir, { text: `output ${k}.${i}\n`.repeat(50), sessionKey: `agent:main:k${k}` });
        expect(refsCache().stats().bytes).toBeLessThanOrEqual(budget);
      }
      expect(refsCache().stats().evictions).toBeGreaterThan(0);
      // the first key was evicted: its handles are read again from its log, not logged again
      for (let i = 0; i < 20; i++) stashArtifact(dir, { text: `output 0.${i}\n`.repeat(50), sessionKey: "agent:main:k0" });
      expect(lines("agent:main:k0")).toBe(20);
    } finally {
      applyCacheBudget(DEFAULT_CONTEXT_MANAGER_CONFIG);
    }
  });

  it("a failed batched refs append is reported and its handles are logged again by the next stash", () => {
    const key = "agent:main:fails";
    const log = refsPath(dir, key);
    stashArtifact(dir, { text: "first output\n".repeat(300), sessionKey: key }); // the log's directory exists
    rmSync(log);
    mkdirSync(log); // appending to a directory fails
    const errors: unknown[] = [];
    const { receipt } = withBatchedRefs(() => stashArtifact(dir, { text: "second output\n".repeat(300), sessionKey: key }), (e) => errors.push(e));
    expect(errors).toHaveLength(1);
    rmSync(log, { recursive: true });
    stashArtifact(dir, { text: "second output\n".repeat(300), sessionKey: key });
    expect(readFileSync(log, "utf8")).toContain(receipt.sha256);
  });

  it("metadata never holds the content", () => {
    const text = Array.from({ length: 400 }, (_, i) => `distinctive-payload-line-${i}`).join("\n");
    const { receipt } = stashArtifact(dir, { text, tool: "read" });
    const meta = readFileSync(metaPath(dir, receipt.sha256), "utf8");
    expect(meta).not.toContain("distinctive-payload-line");
    expect(meta.length).toBeLessThan(600);
    expect(readArtifactMeta(dir, receipt.handle)).toMatchObject({ chars: text.length, lines: 400, contentType: "text", meta: { tool: "read" } });
  });

  it("redacts planted secrets before anything touches disk (blob, meta and refs)", () => {
    const text = SECRETS.map((s, i) => `config ${i}: ${s}`).join("\n") + "\n" + "filler line\n".repeat(900);
    const { receipt, meta } = stashArtifact(dir, { text, tool: "bash", sessionKey: `agent:${PLANTED[1]![0]}` });
    expect(meta.redactions).toBeGreaterThanOrEqual(SECRETS.length);
    for (const f of walk(dir)) {
      const body = readFileSync(f, "utf8");
      for (const [, secret] of PLANTED) expect(body, `${f} holds ${secret}`).not.toContain(secret);
    }
    expect(readArtifact(dir, receipt.handle)).toContain("[REDACTED:");
  });

  it("clear errors for a missing or damaged artifact", () => {
    const missing = `ocm_artifact:v1:sha256:${"ab".repeat(32)}`;
    expect(() => readArtifact(dir, missing)).toThrow(ArtifactNotFoundError);
    const { receipt } = stashArtifact(dir, { text: "x".repeat(5000) });
    writeFileSync(blobPath(dir, receipt.sha256), "tampered");
    expect(() => readArtifact(dir, receipt.handle)).toThrow(ArtifactCorruptError);
    expect(() => readArtifact(dir, "../../etc/passwd")).toThrow(/not an artifact handle/);
  });
});
