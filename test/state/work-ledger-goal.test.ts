import { describe, expect, it } from "vitest";
import { WorkLedger } from "../../src/agents/state/work-ledger.js";

describe("work ledger: the goal", () => {
  it("a bare slash command is a request but not the goal; the first real request is", () => {
    const w = new WorkLedger({ maxFiles: 100, maxErrors: 20 });
    w.onUserRequest("/mode", "/mode");
    w.onUserRequest("/compact keep the parser", "/compact keep the parser");
    w.onUserRequest("fix the footer colour", "fix the footer colour");
    const requests = w.snapshot().requests;
    // the goal is the last entry: the first request that is not a bare command ("/compact x" has an argument)
    expect(requests.at(-1)).toBe("/compact keep the parser");
    expect(requests).toContain("/mode");
    expect(w.requestCount).toBe(3);
  });
});
