/**
 * The scripted coding session: what the "user" types each turn and, on the
 * faux model, what the "agent" answers (tool calls first, then text). A real
 * provider gets the same prompts and answers on its own.
 */
import { type AssistantMessage, fauxAssistantMessage, fauxToolCall } from "@mariozechner/pi-ai";
import { BUGGY_AVERAGE, DESIGN_DOCS, FIXED_AVERAGE } from "./workspace.js";

export interface ScriptedTurn {
  prompt: string;
  replies: AssistantMessage[];
}

const tools = (...calls: Array<[string, Record<string, unknown>]>): AssistantMessage =>
  fauxAssistantMessage(
    calls.map(([name, args]) => fauxToolCall(name, args)),
    { stopReason: "toolUse" },
  );
const text = (t: string): AssistantMessage => fauxAssistantMessage(t);

const OPENING: ScriptedTurn[] = [
  {
    prompt: "average() in src/math.ts gives wrong results for short lists. Please investigate.",
    replies: [
      tools(["read", { path: "README.md" }], ["read", { path: "src/maths.ts" }]),
      tools(["read", { path: "src/math.ts" }]),
      text("src/maths.ts does not exist; the code is in src/math.ts. average() divides by xs.length - 1 instead of xs.length."),
    ],
  },
  {
    prompt: "What does the test expect?",
    replies: [
      tools(["bash", { command: "ls src test" }], ["bash", { command: "cat test/math.test.mjs" }]),
      text("The test expects average([2, 4]) to be 3; the current code returns 6."),
    ],
  },
  {
    prompt: "Fix it.",
    replies: [
      tools(["edit", { path: "src/math.ts", edits: [{ oldText: BUGGY_AVERAGE, newText: FIXED_AVERAGE }] }]),
      text("Fixed: average() now divides by xs.length."),
    ],
  },
  {
    prompt: "Add a regression test for the empty-safe case.",
    replies: [
      tools([
        "write",
        {
          path: "test/average.test.mjs",
          content: "import assert from 'node:assert';\n// regression: average divides by the length\nassert.equal((1 + 2 + 3) / 3, 2);\n",
        },
      ]),
      text("Added test/average.test.mjs."),
    ],
  },
  {
    prompt: "Show me the final src/math.ts.",
    replies: [tools(["bash", { command: "cat src/math.ts" }]), text("src/math.ts now returns total / xs.length.")],
  },
];

function readingTurn(n: number): ScriptedTurn {
  const doc = `docs/design-${String(((n - 1) % DESIGN_DOCS) + 1).padStart(2, "0")}.md`;
  // the agent's own words stay in the prompt (offload ages tool outputs, not replies), so the
  // reading turns still fill the window toward the 80% checkpoint and the compaction
  const rules = Array.from({ length: 40 }, (_, i) => `- rule ${n}.${i + 1}: validate the input, return a new value, report failures with the position.`);
  const summary =
    `Summary of ${doc}: every public function validates input, returns new values and reports failures with positions. ` +
    "For average() this means: reject an empty list explicitly instead of dividing by zero. ".repeat(4) +
    `\nThe rules that apply:\n${rules.join("\n")}`;
  return {
    prompt: `Read ${doc} and tell me what it means for average().`,
    replies: [tools(["read", { path: doc }]), text(summary)],
  };
}

/** `count` turns: the coding opening, then design-note reading turns that fill the window. */
export function buildScript(count: number): ScriptedTurn[] {
  const turns = OPENING.slice(0, count);
  for (let n = 1; turns.length < count; n++) turns.push(readingTurn(n));
  return turns;
}

export const AFTER_COMPACT_PROMPT = "Where were we?";
export const AFTER_NEW_PROMPT = "Good morning. Let's continue with the calculator.";
export const AFTER_PROMPT_REPLY = "Resuming: average() is fixed and tested; next is the empty-list guard from the design notes.";
