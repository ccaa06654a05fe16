/**
 * Breakpoint placement per host, from each host's own provider code (placement.ts cites it):
 * pi-ai marks the last tool, the system prompt and the last block of a trailing user message;
 * OpenClaw marks the last tool, the system prompt's stable part, the latest user text and the
 * last tool_result after it when the 4-marker budget allows.
 */
import { describe, expect, it } from "vitest";
import { type LayoutMessage, placeBreakpoints, type PromptLayout } from "../../src/replay/billing/placement.js";

const blk = (h: string) => ({ hash: h, tokens: 10 });
const user = (...types: Array<"text" | "tool_result" | "image">): LayoutMessage => ({ role: "user", blocks: types.map((t, i) => ({ type: t, block: blk(`u${i}${t}`) })) });
const assistant = (...types: Array<"text" | "tool_use" | "thinking">): LayoutMessage => ({ role: "assistant", blocks: types.map((t, i) => ({ type: t, block: blk(`a${i}${t}`) })) });
const layout = (messages: LayoutMessage[], system = [blk("sys")], systemStable?: number): PromptLayout => ({ tools: [blk("t1"), blk("t2")], system, messages, ...(systemStable === undefined ? {} : { systemStable }) });

describe("pi-ai placement", () => {
  it("last tool, system, and the last block of the last user message", () => {
    // blocks: t1 t2 sys | u:text | a:text,tool_use | u:tool_result,tool_result
    const p = placeBreakpoints(layout([user("text"), assistant("text", "tool_use"), user("tool_result", "tool_result")]), "pi");
    expect(p.breakpoints).toEqual([1, 2, 7]);
  });
  it("no message breakpoint when the last message is the assistant's", () => {
    expect(placeBreakpoints(layout([user("text"), assistant("text")]), "pi").breakpoints).toEqual([1, 2]);
  });
});

describe("OpenClaw placement", () => {
  it("a tool loop: the user's text and the last tool_result after it", () => {
    // t1 t2 sys | u:text(3) | a:tool_use(4) | u:tool_result(5) | a:tool_use(6) | u:tool_result,tool_result(7,8)
    const p = placeBreakpoints(layout([user("text"), assistant("tool_use"), user("tool_result"), assistant("tool_use"), user("tool_result", "tool_result")]), "openclaw");
    expect(p.breakpoints).toEqual([1, 2, 3, 8]);
  });
  it("the system prompt split at its cache boundary: only the stable part is marked", () => {
    // t1 t2 stable(2) dynamic(3) | u:text(4) | a(5) | u:tool_result(6): 2 markers before the messages, 2 left
    const p = placeBreakpoints(layout([user("text"), assistant("tool_use"), user("tool_result")], [blk("stable"), blk("dyn")], 0), "openclaw");
    expect(p.breakpoints).toEqual([1, 2, 4, 6]);
  });
  it("a trailing user text (a gauge line, a new prompt) takes the marker", () => {
    const p = placeBreakpoints(layout([user("text"), assistant("text"), user("text")]), "openclaw");
    expect(p.breakpoints).toEqual([1, 2, 5]);
  });
});
