/**
 * The demo's session: a scripted coding session through the real host (AgentRunner,
 * system events, compaction-safeguard, context manager) on the faux model, with
 * real tools on a temp workspace; prints the timeline and leaves the state dir
 * for the CLI. `--provider/--model` runs the same host against a real provider.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { AgentRunner, type RunnerEvent } from "../auto-reply/reply/agent-runner.js";
import { messageText } from "../faux/faux-model.js";
import { gist } from "../agents/text/gist.js";
import { FRESH_STASH } from "../agents/artifacts/offload.js";
import type { DemoArgs } from "./args.js";
import { CheckpointWatcher } from "./checkpoint-watch.js";
import { fauxDemoModel, realDemoModel, type DemoModel } from "./model.js";
import { AFTER_COMPACT_PROMPT, AFTER_NEW_PROMPT, AFTER_PROMPT_REPLY, buildScript } from "./script.js";
import { type Print, TimelinePrinter } from "./timeline.js";
import { editOutsideSession, OUTSIDE_EDIT_FILE, seedWorkspace } from "./workspace.js";

const FAUX_CONTEXT_WINDOW = 16_000;

interface Dirs {
  stateDir: string;
  workspace: string;
}

function makeDirs(args: DemoArgs): Dirs {
  const root = mkdtempSync(join(tmpdir(), "openclaw-context-demo-"));
  const stateDir = args.stateDir ? resolve(args.stateDir) : join(root, "state");
  const workspace = join(root, "workspace");
  mkdirSync(stateDir, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  return { stateDir, workspace };
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function runnerOffloadLine(c: { offload: boolean; offloadAgeTurns: number; offloadAgedMinChars: number }): string {
  if (!c.offload) return "off";
  return `tool outputs over ${FRESH_STASH.minChars.toLocaleString("en-US")} chars stored at once, over ${c.offloadAgedMinChars.toLocaleString("en-US")} chars (and long call arguments) after ${c.offloadAgeTurns} turns: the model sees a handle + preview (artifact_fetch)`;
}

export async function runDemo(args: DemoArgs, print: Print): Promise<{ stateDir: string }> {
  const started = Date.now();
  const dirs = makeDirs(args);
  seedWorkspace(dirs.workspace);
  const demo: DemoModel = args.provider
    ? realDemoModel(args.provider, args.model!, args.contextWindow)
    : fauxDemoModel(args.contextWindow ?? FAUX_CONTEXT_WINDOW);
  const window = demo.model.contextWindow;
  const key = args.sessionKey;
  const timeline = new TimelinePrinter(print, dirs.stateDir);
  const checkpoints = new CheckpointWatcher(dirs.stateDir, key, (cp, path, size) => timeline.checkpoint(cp, path, size));

  let userText = "";
  let lastUsage: number | null = null;
  const toolArgs = new Map<string, Record<string, unknown>>();
  const onEvent = (e: RunnerEvent) => {
    if (e.type === "turn_start" && e.systemEvents.length > 0) timeline.delivered(e.prompt, userText);
    else if (e.type === "new_session") timeline.newSession(e.sessionId);
    else if (e.type === "resume") {
      timeline.resume(e.restore.checkpoint.meta.checkpoint_id, e.restore.tokens);
      const drift = e.restore.drift;
      if (drift?.drifted) timeline.note(`    workspace drift since the checkpoint: ${drift.files.map((f) => `${f.change} ${f.path}`).join(", ") || "git state"}`);
    }
    else if (e.type === "compaction") {
      checkpoints.scan();
      timeline.compaction(e.trigger, e.tokensBefore, e.tokensAfter, e.restore, e);
    } else if (e.type === "session_event") {
      const ev = e.event;
      if (ev.type === "tool_execution_start") toolArgs.set(ev.toolCallId, (ev.args ?? {}) as Record<string, unknown>);
      else if (ev.type === "tool_execution_end") {
        const a = toolArgs.get(ev.toolCallId) ?? {};
        const target = String(a.path ?? a.command ?? "");
        timeline.tool(ev.toolName, target, ev.isError, messageText(ev.result ?? {} as never));
        checkpoints.scan();
      } else if (ev.type === "message_end" && ev.message.role === "assistant") {
        const m = ev.message;
        if (m.stopReason !== "error" && m.stopReason !== "aborted") lastUsage = m.usage.input + m.usage.cacheRead + m.usage.output;
        timeline.agentReply(messageText(m));
      }
    }
  };
  demo.onGaugeSeen((line) => {
    checkpoints.scan();
    timeline.gauge(line);
  });

  const ratio = (f: number) => Math.round(window * f);
  // pi compacts above window - reserve: 14% puts the threshold compaction in turn 13, so the
  // manual /compact after turn 14 has turns of its own to compact
  const reserveTokens = ratio(0.14);
  const runner = new AgentRunner({
    stateDir: dirs.stateDir,
    workspaceDir: dirs.workspace,
    model: demo.model,
    authStorage: demo.authStorage,
    compaction: { enabled: true, reserveTokens, keepRecentTokens: ratio(0.19) },
    cfg: { agents: { defaults: { contextManager: { compaction: args.compaction } } } },
    extraExtensionFactories: demo.extraExtensionFactories,
    logger: { warn: (m) => print(`  log    ${gist(m, 200)}`) },
    onEvent,
    systemPrompt: "You are a coding agent working in the user's workspace. Be concise.",
  });

  timeline.banner([
    "openclaw-context-manager demo",
    `  model       ${demo.model.provider}/${demo.model.id} (context window ${window} tokens${demo.agent ? ", scripted faux agent" : ""})`,
    `  session key ${key}`,
    `  state dir   ${dirs.stateDir}`,
    `  workspace   ${dirs.workspace}`,
    `  thresholds  gauge 70%, checkpoint 80%, auto-compaction above ${window - reserveTokens} tokens`,
    `  offload     ${runnerOffloadLine(runner.contextManagerConfig)}`,
    `  compaction  ${args.compaction === "checkpoint" ? "checkpoint: the compaction checkpoint is the summary (no model call)" : "host: the model summarizes, the restore block follows"}`,
  ]);

  const send = async (label: string, text: string, replies: Parameters<NonNullable<DemoModel["agent"]>["queue"]> = []) => {
    userText = text;
    timeline.turnHeader(label, text);
    demo.agent?.queue(...replies);
    lastUsage = null;
    const report = await runner.handleInbound(key, text);
    checkpoints.scan();
    if (report.command === "prompt") timeline.usage(lastUsage, window, report.compactions.length > 0);
    return report;
  };

  try {
    const script = buildScript(args.turns);
    for (const [i, turn] of script.entries()) await send(`Turn ${i + 1}/${script.length}`, turn.prompt, turn.replies);
    const fauxReply = demo.agent ? [fauxAssistantMessage(AFTER_PROMPT_REPLY)] : [];
    await send("/compact (manual)", "/compact");
    await send("After /compact", AFTER_COMPACT_PROMPT, fauxReply);
    await send("/new (same session key)", "/new");
    editOutsideSession(dirs.workspace);
    timeline.note(`outside  ${OUTSIDE_EDIT_FILE} edited outside the session (no agent involved) before the next message`);
    await send("First message of the new session", AFTER_NEW_PROMPT, fauxReply);
  } finally {
    demo.dispose();
  }

  const q = shellQuote;
  const common = `--state-dir ${q(dirs.stateDir)}`;
  const withKey = `${common} --session-key ${q(key)}`;
  print("");
  print("── Done " + "─".repeat(56));
  print(`  ${checkpoints.count()} checkpoint(s) written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  print(`  state dir (kept): ${dirs.stateDir}`);
  print(`  checkpoints:      ${checkpoints.dir}`);
  print("  inspect it with the CLI:");
  print(`    npm run cli -- list ${common}`);
  print(`    npm run cli -- status ${withKey}`);
  print(`    npm run cli -- show cp_001 ${withKey}`);
  print(`    npm run cli -- restore --kind resume ${withKey}`);
  print(`    npm run cli -- verify ${common}`);
  print(`    npm run cli -- prune --keep 3 ${withKey}`);
  return { stateDir: dirs.stateDir };
}

