/**
 * A real pi ctx after its session is disposed (what print mode does while a compaction is still
 * finishing): its getters throw. SessionCapture answers with the values of the last live event,
 * and the debug switch shows what was swallowed; without the switch it stays quiet.
 */
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { SessionCapture } from "../../src/agents/pi-extensions/context-manager-session.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

describe("stale pi ctx", () => {
  let s: Standalone | undefined;
  afterAll(() => s?.cleanup());
  afterEach(() => {
    delete process.env.OPENCLAW_CONTEXT_DEBUG;
    vi.restoreAllMocks();
  });

  it("values captured at the live event survive the session's disposal; the debug switch logs the stale read", async () => {
    let captured: ExtensionContext | undefined;
    s = await makeStandalone({ extraExtensionFactories: [(pi) => pi.on("session_start", (_e, ctx) => void (captured = ctx))] });
    const session = await s.open();
    const capture = new SessionCapture();
    const live = capture.from(captured!, "session_start");
    expect(live?.cwd).toBe(s.cwd);
    expect(live?.contextWindow).toBe(16_000);
    session.dispose();
    expect(() => captured!.cwd).toThrow(/stale/);

    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    expect(capture.from(captured!, "session_before_compact")).toBe(live);
    expect(lines).toEqual([]);
    process.env.OPENCLAW_CONTEXT_DEBUG = "1";
    expect(capture.from(captured!, "session_compact")?.sessionManager).toBe(session.sessionManager);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[context-manager\] debug: session_compact: ctx is stale, using the values captured at the last live event: Error: This extension ctx is stale/);
  });
});
