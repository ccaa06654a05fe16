/** The optional `artifacts` list through the YAML writer and reader: the `lines` of a partial read round-trip; a bad one is refused, naming it. */
import { describe, expect, it } from "vitest";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { linesOf } from "../../src/agents/artifacts/session-stashes.js";
import { makeCheckpoint } from "../checkpoint/helpers.js";

const HANDLE = `ocm_artifact:v1:sha256:${"ab".repeat(32)}`;

describe("checkpoint.artifacts[].lines", () => {
  it("round-trips, and is absent when the read was whole", () => {
    const artifacts = [
      { handle: HANDLE, tool: "read", target: "src/table.ts", lines: "401-800", bytes: 9000 },
      { handle: HANDLE, tool: "read", target: "src/other.ts", bytes: 12 },
    ];
    const back = parseCheckpoint(serializeCheckpoint({ ...makeCheckpoint(), artifacts }), "cp_003.yaml");
    expect(back.artifacts).toEqual(artifacts);
  });

  it.each([["401-800\n- forged line"], ["lots"], [7]])("rejects a bad value, naming it (%#)", (lines) => {
    const cp = { ...makeCheckpoint(), artifacts: [{ handle: HANDLE, tool: "read", target: "a.ts", lines, bytes: 1 }] } as never;
    expect(() => serializeCheckpoint(cp)).toThrow(/cp_003\.yaml: artifacts\[0\]\.lines: expected/);
  });

  it("comes from the read call's offset and limit (1-based), whole numbers only", () => {
    expect(linesOf({ path: "a.ts", offset: 401, limit: 400 })).toBe("401-800");
    expect(linesOf({ path: "a.ts", offset: 120 })).toBe("120-");
    expect(linesOf({ path: "a.ts", limit: 50 })).toBe("1-50");
    expect(linesOf({ path: "a.ts" })).toBeUndefined();
    expect(linesOf({ path: "a.ts", offset: "12", limit: 1.5 })).toBeUndefined();
    expect(linesOf(null)).toBeUndefined();
  });
});
