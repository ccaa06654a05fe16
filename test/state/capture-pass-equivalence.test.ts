/**
 * A capture pass gists an assistant text only when it still stands at the end of the pass
 * (state/message-capture.ts). On the real sessions, the state of one pass is the state recorded
 * under capture-golden/ (taken with every text gisted as it came, before the deferral; update
 * with `npx vitest run -u` only for a change of the capture rules), and the same history
 * captured one message per pass (the live engine's path) leaves the same state.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ContextState } from "../../src/agents/state/context-state.js";
import { stateFileData } from "../../src/agents/state/captured-state.js";
import { STATE_FILE_NAMES } from "../../src/agents/state/state-files.js";
import { readTranscriptJson, transcriptFiles } from "../helpers/transcripts.js";
import { CONFIG, rmDir, tempDir } from "./fixtures.js";

let stateDir: string;
beforeEach(async () => {
  stateDir = await tempDir();
});
afterEach(async () => {
  await rmDir(stateDir);
});

const transcripts = transcriptFiles().filter((f) => !f.startsWith("index") && !f.includes("llm-summaries"));

async function captured(key: string, messages: AgentMessage[], perMessage: boolean) {
  const st = await ContextState.load({ stateDir, sessionKey: key, sessionId: "s1", config: CONFIG, logger: { warn() {} }, toolResultsFromMessages: { cwd: "/repo" } });
  if (perMessage) for (let end = 1; end <= messages.length; end++) st.captureMessages(messages, end);
  else st.captureMessages(messages);
  const files = Object.fromEntries(STATE_FILE_NAMES.map((n) => [n, stateFileData((st as unknown as { s: never }).s, n)]));
  return { snapshot: st.snapshot(), files };
}

describe("one capture pass equals one message per pass", () => {
  for (const file of transcripts) {
    it(file, async () => {
      const messages = readTranscriptJson<AgentMessage[]>(file);
      const whole = await captured("one-pass", messages, false);
      const stepped = await captured("per-message", messages, true);
      await expect(`${JSON.stringify(whole.files, null, 1)}\n`).toMatchFileSnapshot(`capture-golden/${file}`);
      expect(whole.files).toEqual(stepped.files);
      expect({ ...whole.snapshot, sessionKey: "" }).toEqual({ ...stepped.snapshot, sessionKey: "" });
      expect(JSON.stringify(whole.files.work)).toContain('"outcome":"');
    });
  }
});
