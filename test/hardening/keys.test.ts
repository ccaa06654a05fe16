/**
 * Two distinct session keys never share a directory, also when they are not well-formed
 * UTF-16 (`x\uD800`, `x\uDC00`) or hold the escape form itself (`x\uFFFD{d800}`): each writes,
 * reads and restores its own checkpoints through the engine, the store and the CLI.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { onSessionStarted } from "../../src/openclaw-core/restore-seams.js";
import { canonicalSessionKey } from "../../src/infra/session-dir.js";
import { checkpointSessionDir, sessionDirName, stateSessionDir } from "../../src/infra/session-dir.js";
import { runCli } from "../../src/cli/main.js";
import { assistantMsg, compactEvent, makeEngine, rmDir, tempDir, userMsg } from "./helpers.js";

/** Independent decoder of canonicalSessionKey's escape: proves the map is injective. */
function decode(s: string): string {
  return s.replace(/\ufffd\{([0-9a-f]{4})\}/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Any sequence of UTF-16 code units, lone surrogates, U+FFFD and `{` made likely. */
const utf16 = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0x7b, 0x78)), { maxLength: 12 })
  .map((units) => String.fromCharCode(...units));

describe("session keys that are not well-formed UTF-16", () => {
  it("fast-check: the map is injective (decodes back) and distinct keys get distinct directories", () => {
    let pairs = 0;
    fc.assert(
      fc.property(utf16, utf16, (a, b) => {
        expect(decode(canonicalSessionKey(a))).toBe(a);
        expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(canonicalSessionKey(a))).toBe(false);
        if (a !== b) {
          pairs++;
          expect(sessionDirName(a)).not.toBe(sessionDirName(b));
        }
      }),
      { numRuns: 20_000, seed: 11 },
    );
    console.log(`keys: ${pairs} distinct pairs, 0 shared directories`);
    // ordinary keys keep their directory (no migration)
    expect(canonicalSessionKey("agent:main:telegram:direct:42")).toBe("agent:main:telegram:direct:42");
    expect(canonicalSessionKey("x\uFFFD")).toBe("x\uFFFD");
  });

  it("x\\uD800, x\\uDC00, x\\uFFFD and x\\uFFFD{d800} each write, read and restore their own checkpoints", async () => {
    const stateDir = tempDir("cm-keys-");
    try {
      const keys = ["x\uD800", "x\uDC00", "x\uFFFD", "x\uFFFD{d800}", "x\uD800\uDC00"];
      for (const [i, key] of keys.entries()) {
        const { engine } = makeEngine({ stateDir, sessionKey: key });
        const messages = [userMsg(`task of key ${i}`), assistantMsg("ok")];
        await engine.onContext(messages, undefined);
        expect(await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w")).not.toBeNull();
        await engine.flushNow();
      }
      const dirs = new Set(keys.map((k) => checkpointSessionDir(stateDir, k)));
      expect(dirs.size).toBe(keys.length);
      expect(new Set(keys.map((k) => stateSessionDir(stateDir, k))).size).toBe(keys.length);
      for (const [i, key] of keys.entries()) {
        const block = await onSessionStarted({ stateDir, sessionKey: key, sessionId: "next", enqueue: () => undefined });
        expect(block?.checkpoint.working.topic).toBe(`task of key ${i}`);
      }
      // the CLI sees five valid sessions, each in its own directory, none flagged
      const lines: string[] = [];
      const warns: string[] = [];
      const code = await runCli(["verify", "--state-dir", stateDir], { line: (t) => lines.push(t), json: () => undefined, warn: (t) => warns.push(t) });
      expect({ code, warns }).toEqual({ code: 0, warns: [] });
    } finally {
      rmDir(stateDir);
    }
  });
});
