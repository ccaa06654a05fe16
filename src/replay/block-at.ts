/**
 * `npx tsx src/replay/block-at.ts <transcript.json> <n>...`
 * The restore block the agent would receive after the first n messages of a transcript: the
 * messages are fed to a real ContextState as the extension feeds it (a context event with the
 * message prefix before each recorded tool result, the tool_result event with its call's
 * arguments, and a context event with the whole prefix at the cut), a
 * compaction checkpoint is built and rendered at the default cap. No runner, no model: used to
 * compare a block with the LLM summary written at the same point of the same session.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { buildCheckpointDraft } from "../agents/state/checkpoint-build.js";
import { renderCheckpointRestore } from "../agents/inject/render-restore.js";
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../agents/config/context-manager-config.js";
import { ContextState } from "../agents/state/context-state.js";

interface Msg {
  role: string;
  content?: unknown;
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

export interface BlockAt {
  cut: number;
  text: string;
  tokens: number;
  checkpoint: Checkpoint;
}

/** Blocks at each cut (ascending), from one pass over the messages. */
export async function blocksAt(messages: readonly Msg[], cuts: readonly number[], stateDir: string): Promise<BlockAt[]> {
  const st = await ContextState.load({ stateDir, sessionKey: "k", sessionId: "s", config: DEFAULT_CONTEXT_MANAGER_CONFIG, logger: { warn() {} } });
  const args = new Map<string, unknown>();
  const out: BlockAt[] = [];
  let n = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    for (; n < cut && n < messages.length; n++) {
      const m = messages[n]!;
      if (m.role === "assistant" && Array.isArray(m.content)) {
        for (const b of m.content as Array<{ type?: string; id?: string; arguments?: unknown }>) {
          if (b?.type === "toolCall" && typeof b.id === "string") args.set(b.id, b.arguments);
        }
      }
      if (m.role === "toolResult") {
        // the context event of the request that made this call came first (user requests before it are known)
        st.captureMessages(messages.slice(0, n) as unknown as AgentMessage[]);
        st.captureToolResult(
          { toolName: String(m.toolName), input: args.get(String(m.toolCallId)) ?? {}, content: m.content, isError: m.isError === true },
          "/replay-cwd",
        );
      }
    }
    st.captureMessages(messages.slice(0, n) as unknown as AgentMessage[]);
    const draft = buildCheckpointDraft({
      state: st.snapshot(),
      previous: null,
      trigger: "compaction",
      reading: { tokens: 30_000, contextWindow: 32_000, utilization: 0.94, source: "sdk" },
      identity: { sessionKey: "k", sessionId: "s", sessionFile: null, agentId: null, channel: null },
      compactionCount: 1,
      config: DEFAULT_CONTEXT_MANAGER_CONFIG,
    });
    const checkpoint: Checkpoint = { ...draft, meta: { ...draft.meta, checkpoint_id: "cp_001", previous_checkpoint: null } };
    const r = renderCheckpointRestore(checkpoint, { kind: "post-compaction", maxTokens: DEFAULT_CONTEXT_MANAGER_CONFIG.restoreMaxTokens });
    out.push({ cut: n, text: r.text, tokens: r.tokens, checkpoint });
  }
  return out;
}

async function main(argv: string[]) {
  const [file, ...ns] = argv;
  const cuts = ns.map(Number).filter((n) => Number.isInteger(n) && n >= 0);
  if (!file || cuts.length === 0) {
    console.error("usage: npx tsx src/replay/block-at.ts <transcript.json> <n>...");
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "cm-block-at-"));
  try {
    const messages = JSON.parse(readFileSync(file, "utf8")) as Msg[];
    for (const b of await blocksAt(messages, cuts, dir)) console.log(`--- after ${b.cut} messages: ${b.tokens} tokens\n${b.text}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && /block-at\.ts$/.test(process.argv[1])) void main(process.argv.slice(2));
