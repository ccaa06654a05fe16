/** restoreDue and withoutSuperseded: the pure rules behind one restore block per compaction / new session. */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionEntry } from "@mariozechner/pi-coding-agent";
import { GAUGE_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";
import { REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";
import { restoreDue } from "../../src/agents/pi-extensions/context-manager-session.js";
import { withoutSuperseded } from "../../src/agents/engine/request.js";

let n = 0;
const base = () => ({ id: `e${++n}`, parentId: null, timestamp: new Date().toISOString() });
const msg = (): SessionEntry => ({ ...base(), type: "message", message: { role: "user", content: "hi", timestamp: 1 } }) as SessionEntry;
const compaction = (): SessionEntry =>
  ({ ...base(), type: "compaction", summary: "s", firstKeptEntryId: "e1", tokensBefore: 10 }) as SessionEntry;
const restore = (): SessionEntry => ({ ...base(), type: "custom_message", customType: RESTORE_CUSTOM_TYPE, content: "r", display: false }) as SessionEntry;
const custom = (customType: string, content = "x"): AgentMessage =>
  ({ role: "custom", customType, content, display: false, timestamp: 1 }) as AgentMessage;
const user = (content: string): AgentMessage => ({ role: "user", content, timestamp: 1 }) as AgentMessage;

describe("restoreDue", () => {
  it("resume on an empty session, nothing once it has messages", () => {
    expect(restoreDue([])).toEqual({ kind: "resume", key: "resume" });
    expect(restoreDue([msg()])).toBeNull();
  });
  it("post-compaction after a compaction with no restore after it, keyed by the compaction entry", () => {
    const c = compaction();
    expect(restoreDue([msg(), c, msg()])).toEqual({ kind: "post-compaction", key: c.id });
    expect(restoreDue([msg(), c, restore(), msg()])).toBeNull();
    const c2 = compaction();
    expect(restoreDue([msg(), c, restore(), msg(), c2])).toEqual({ kind: "post-compaction", key: c2.id });
  });
  it("a resume block already delivered is not delivered again", () => {
    expect(restoreDue([restore()])).toBeNull();
  });
});

describe("withoutSuperseded", () => {
  it("keeps only the latest restore block and gauge line and drops /context reports", () => {
    const msgs = [user("a"), custom(RESTORE_CUSTOM_TYPE, "old"), user("b"), custom(REPORT_CUSTOM_TYPE), custom(RESTORE_CUSTOM_TYPE, "new"), custom(GAUGE_CUSTOM_TYPE, "g1"), custom(GAUGE_CUSTOM_TYPE, "g2")];
    const out = withoutSuperseded(msgs);
    expect(out.map((m) => (m as { content: string }).content)).toEqual(["a", "b", "new", "g2"]);
  });
  it("returns the same array when nothing is superseded", () => {
    const msgs = [user("a"), custom(RESTORE_CUSTOM_TYPE), custom("other")];
    expect(withoutSuperseded(msgs)).toBe(msgs);
  });
});
