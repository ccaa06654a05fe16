/** Test host: a real AgentRunner on the faux model, real tools, real temp dirs. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthStorage, type ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { fauxAssistantMessage, fauxToolCall, type Context } from "@mariozechner/pi-ai";
import { AgentRunner, type RunnerEvent } from "../../src/auto-reply/reply/agent-runner.js";
import { fauxUsageFixExtension, messageText, registerFauxModel } from "../../src/faux/faux-model.js";
import { createScriptedAgent } from "../../src/faux/scripted-agent.js";
import { resetSystemEventsForTest } from "../../src/auto-reply/system-events.js";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";

export interface HostOptions {
  contextWindow?: number;
  reserveTokens?: number;
  keepRecentTokens?: number;
  contextManager?: Record<string, unknown>;
  stateDir?: string;
  root?: string;
  /** loaded before the embedded factories (after the faux usage fix), for every runner */
  extraExtensionFactories?: ExtensionFactory[];
  /** the host's compaction mode ("default" = pi's own summary, no safeguard) */
  compactionMode?: "safeguard" | "default";
}

export function filler(label: string, chars: number): string {
  let s = `${label} `;
  while (s.length < chars) s += "lorem ipsum dolor sit amet ";
  return s.slice(0, chars);
}

export async function makeHost(opts: HostOptions = {}) {
  resetSystemEventsForTest();
  const root = opts.root ?? mkdtempSync(join(tmpdir(), "cm-host-"));
  const workspace = join(root, "workspace");
  const stateDir = opts.stateDir ?? join(root, "state");
  mkdirSync(workspace, { recursive: true });
  const faux = registerFauxModel({ contextWindow: opts.contextWindow ?? 16_000, maxTokens: 2048 });
  const agent = createScriptedAgent();
  faux.setResponder(agent.responder);
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.provider, "faux-key");
  const warnings: string[] = [];
  const debugs: string[] = [];
  const events: RunnerEvent[] = [];
  const makeRunner = (over: { compactionEnabled?: boolean } = {}) =>
    new AgentRunner({
      stateDir,
      workspaceDir: workspace,
      model: faux.model,
      authStorage,
      cfg: { agents: { defaults: { contextManager: opts.contextManager ?? {}, compaction: { mode: opts.compactionMode ?? "safeguard" } } } },
      compaction: {
        enabled: over.compactionEnabled ?? true,
        reserveTokens: opts.reserveTokens ?? 2_000,
        keepRecentTokens: opts.keepRecentTokens ?? 3_000,
      },
      extraExtensionFactories: [fauxUsageFixExtension(faux.registration.api), ...(opts.extraExtensionFactories ?? [])],
      logger: { warn: (m) => warnings.push(m), debug: (m) => debugs.push(m) },
      onEvent: (e) => events.push(e),
      systemPrompt: "You are a faux coding agent used in tests.",
    });
  const runner = makeRunner();
  return {
    root,
    workspace,
    stateDir,
    faux,
    agent,
    authStorage,
    runner,
    makeRunner,
    warnings,
    debugs,
    events,
    write(rel: string, text: string) {
      writeFileSync(join(workspace, rel), text);
    },
    /**
     * After the background writes the test did not await (a compaction's span archive and
     * knowledge records): removing the tree under one failed with ENOTEMPTY on a loaded machine.
     * Never rejects (some callers do not await it).
     */
    cleanup(): Promise<void> {
      faux.unregister();
      return backgroundWritesSettled()
        .then(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }))
        .catch(() => undefined);
    },
  };
}

export type Host = Awaited<ReturnType<typeof makeHost>>;

/** All text the provider saw in one request, one entry per message. */
export function requestTexts(context: Context): string[] {
  return context.messages.map((m) => messageText(m as { role: string; content?: unknown }));
}

export const reply = {
  text: (t: string) => fauxAssistantMessage(t),
  tools: (...calls: Array<[string, Record<string, unknown>]>) =>
    fauxAssistantMessage(
      calls.map(([name, args]) => fauxToolCall(name, args)),
      { stopReason: "toolUse" },
    ),
};
