/**
 * `pi --mode rpc` with manual `compact` and `new_session`: pi emits session_start (reason "new")
 * twice for one new session, and the restore block of an earlier compaction survives in pi's
 * keep-recent window. The model must see exactly one restore block per request: the newest.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { bigPrompt, makePiHome, PI, type PiHome, startsWith } from "./pi-env.js";
import { PiRpc } from "./rpc-client.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

describe("pi --mode rpc", () => {
  let home: PiHome;
  let rpc: PiRpc | undefined;
  afterAll(async () => {
    await rpc?.close();
    home?.cleanup();
  });

  it("compact, compact again, new_session: one restore block per request, always the latest", async () => {
    home = await makePiHome({ window: 32_000, replyChars: 400, settings: { compaction: { enabled: true, reserveTokens: 2000, keepRecentTokens: 2000 } } });
    rpc = new PiRpc(PI, home.baseArgs(), { cwd: home.cwd, env: home.env });
    await rpc.command({ type: "prompt", message: bigPrompt("First") });
    await rpc.command({ type: "prompt", message: bigPrompt("Second") });
    await rpc.command({ type: "compact" });
    await rpc.command({ type: "prompt", message: "Third, short." });
    const afterFirst = home.requests().at(-1)!;
    expect(startsWith(afterFirst, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(1);

    await rpc.command({ type: "prompt", message: bigPrompt("Fourth") });
    await rpc.command({ type: "compact" });
    await rpc.command({ type: "prompt", message: "Fifth, short." });
    const afterSecond = home.requests().at(-1)!;
    const blocks = startsWith(afterSecond, RESTORE_HEADER_POST_COMPACTION);
    expect(blocks).toHaveLength(1);
    const cps = readCheckpointsOnDisk(home.stateDir, `pi:${home.cwd}`).filter((c) => c.meta.trigger === "compaction");
    expect(cps).toHaveLength(2);
    expect(blocks[0]).toContain(cps[1]!.meta.checkpoint_id);

    await rpc.command({ type: "new_session" });
    await rpc.command({ type: "prompt", message: "Sixth, in a new session." });
    const afterNew = home.requests().at(-1)!;
    expect(startsWith(afterNew, RESTORE_HEADER_RESUME)).toHaveLength(1);
    expect(startsWith(afterNew, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(0);
    await rpc.command({ type: "prompt", message: "Seventh." });
    expect(startsWith(home.requests().at(-1)!, RESTORE_HEADER_RESUME)).toHaveLength(1);
    expect(rpc.stderr).not.toMatch(/Extension error/);
  }, 3 * TEST_TIMEOUT_MS);
});
