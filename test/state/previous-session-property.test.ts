/**
 * Issue 11 item 7, the whole input space of one key's state directory (fast-check): any subset of
 * state files, each written by an earlier session (two of them) or by the current one, each newer
 * or older than the key's latest checkpoint. After the new session's bundling and load:
 * - every file of an earlier session newer than the checkpoint is in exactly one bundle of THAT
 *   session (marked `recovered`), and nowhere else;
 * - every file older than the checkpoint is stale: in `stale/`, in no checkpoint, not merged;
 * - the current session's own newer files are merged into its state and bundled nowhere;
 * - nothing stays held and no earlier session's file is left in place.
 */
import fs from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextState } from "../../src/agents/state/context-state.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { recoverPreviousSessions } from "../../src/agents/engine/recover-previous-session.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { CONFIG, rmDir, tempDir } from "./fixtures.js";

const KEY = "telegram:user1";
const NAMES = ["decisions", "resources", "learnings", "open_items"] as const;
type Name = (typeof NAMES)[number];
const CHECKPOINT_AT = "2026-02-24T15:30:00.000Z"; // makeDraft's created_at
const OLDER = "2026-02-24T15:00:00.000Z";
const NEWER = "2026-02-24T16:00:00.000Z";

function dataOf(name: Name, marker: string): unknown {
  switch (name) {
    case "decisions":
      return { items: [{ what: marker, when: NEWER }] };
    case "resources":
      return { files_read: [], files_modified: [marker], tools_used: ["write"] };
    case "learnings":
      return { items: [marker] };
    case "open_items":
      return { open: [{ key: `note\u0000${marker}`, text: marker }], closed: [] };
  }
}

const fileSpec = fc.option(fc.record({ owner: fc.constantFrom("a", "b", "cur"), newer: fc.boolean() }), { nil: undefined });

describe("previous-session bundling over every layout of a state directory (fast-check)", () => {
  it("bundles exactly the earlier sessions' newer files, keeps the stale rule, merges only the current session's own", async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.tuple(fileSpec, fileSpec, fileSpec, fileSpec), async (specs) => {
        tried++;
        const stateDir = await tempDir();
        try {
          await writeCheckpoint({ stateDir }, makeDraft({ sessionKey: KEY, sessionId: "base" }));
          const dir = stateSessionDir(stateDir, KEY);
          await fs.mkdir(dir, { recursive: true });
          const files = NAMES.flatMap((name, i) => {
            const s = specs[i];
            return s ? [{ name, ...s, marker: `marker-${s.owner}-${name}-${s.newer ? "new" : "old"}` }] : [];
          });
          for (const f of files) {
            const env = { version: 1, session_id: f.owner, session_key: KEY, updated_at: f.newer ? NEWER : OLDER, data: dataOf(f.name, f.marker) };
            await fs.writeFile(path.join(dir, `${f.name}.json`), JSON.stringify(env));
          }

          const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "cur", config: CONFIG, logger: { warn: () => undefined, debug: () => undefined } });
          expect(r.failed).toBe(0);
          const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "cur", config: CONFIG, latestCheckpointAt: CHECKPOINT_AT, logger: { warn: () => undefined, debug: () => undefined } });
          const merged = JSON.stringify(st.snapshot());
          const bundles = readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.session_id !== "base");
          const left = await fs.readdir(dir);
          const stale = left.includes("stale") ? await fs.readdir(path.join(dir, "stale")) : [];

          const owners = new Set(files.filter((f) => f.owner !== "cur" && f.newer).map((f) => f.owner));
          expect(bundles.map((b) => b.meta.session_id).sort()).toEqual([...owners].sort());
          for (const b of bundles) expect(b.recovered?.by_session_id).toBe("cur");
          for (const f of files) {
            const holders = bundles.filter((b) => JSON.stringify(b).includes(f.marker)).map((b) => b.meta.session_id);
            if (f.owner !== "cur" && f.newer) expect(holders, f.marker).toEqual([f.owner]);
            else expect(holders, f.marker).toEqual([]);
            expect(merged.includes(f.marker), f.marker).toBe(f.owner === "cur" && f.newer);
            if (!f.newer) expect(stale.some((s) => s.startsWith(`${f.name}.`)), f.marker).toBe(true);
          }
          expect(left.filter((x) => x.startsWith("previous."))).toEqual([]);
        } finally {
          await rmDir(stateDir);
        }
      }),
      { numRuns: 100, seed: 7 },
    );
    expect(tried).toBe(100);
  });
});
