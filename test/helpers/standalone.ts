/**
 * Standalone Pi (no OpenClaw host): a real AgentSession with the context-manager
 * extension in standalone mode and pi's DEFAULT compaction (no safeguard), on the
 * faux model, in temp dirs.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentSession,
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionFactory,
  ModelRegistry,
  SessionManager,
  SettingsManager,
} from "@mariozechner/pi-coding-agent";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { createContextManagerExtension } from "../../src/agents/pi-extensions/context-manager.js";
import { fauxUsageFixExtension, registerFauxModel } from "../../src/faux/faux-model.js";
import { createScriptedAgent } from "../../src/faux/scripted-agent.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function makeStandalone(
  opts: { contextWindow?: number; contextManager?: Record<string, unknown>; tools?: string[]; extraExtensionFactories?: ExtensionFactory[] } = {},
) {
  const root = mkdtempSync(join(tmpdir(), "cm-standalone-"));
  const cwd = join(root, "project");
  const agentDir = join(root, "agent");
  const stateDir = join(root, "state");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const faux = registerFauxModel({ contextWindow: opts.contextWindow ?? 16_000, maxTokens: 2048 });
  const agent = createScriptedAgent();
  faux.setResponder(agent.responder);
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.provider, "faux-key");
  const config = resolveContextManagerConfig({ ...(opts.contextManager ?? {}), stateDir });
  const errors: string[] = [];
  const compactions: Array<{ reason: string; ok: boolean }> = [];
  const runsOpen = new Set<AgentSession>();

  async function open(sessionManager: SessionManager = SessionManager.inMemory(cwd)): Promise<AgentSession> {
    const settingsManager = SettingsManager.inMemory({
      compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 3_000 },
      retry: { enabled: false },
    });
    const resourceLoader = new DefaultResourceLoader({
      cwd,
      agentDir,
      settingsManager,
      extensionFactories: [fauxUsageFixExtension(faux.registration.api), createContextManagerExtension({ standalone: true, config }), ...(opts.extraExtensionFactories ?? [])],
      noExtensions: true,
      noSkills: true,
      noPromptTemplates: true,
      noThemes: true,
      noContextFiles: true,
      systemPromptOverride: () => "You are a faux coding agent used in tests.",
    });
    await resourceLoader.reload();
    const { session } = await createAgentSession({
      cwd,
      agentDir,
      model: faux.model,
      thinkingLevel: "off",
      tools: opts.tools ?? ["read", "write", "edit", "bash"],
      authStorage,
      modelRegistry: ModelRegistry.inMemory(authStorage),
      resourceLoader,
      sessionManager,
      settingsManager,
    });
    session.subscribe((e) => {
      // listeners hear agent_end after the extensions' agent_end handlers; auto-compaction is checked after that
      if (e.type === "agent_start") runsOpen.add(session);
      if (e.type === "agent_end") runsOpen.delete(session);
      if (e.type === "compaction_end") compactions.push({ reason: e.reason, ok: Boolean(e.result) && !e.aborted });
    });
    await session.bindExtensions({ onError: (e) => errors.push(String(e.error)) });
    return session;
  }

  /** prompt() may resolve before auto-compaction has finished */
  async function prompt(session: AgentSession, text: string): Promise<void> {
    await session.prompt(text);
    await new Promise((r) => setImmediate(r));
    while (session.isCompacting || session.isStreaming || runsOpen.has(session)) await sleep(5);
    await new Promise((r) => setImmediate(r));
    while (session.isCompacting) await sleep(5);
  }

  return {
    root,
    cwd,
    stateDir,
    config,
    faux,
    agent,
    errors,
    compactions,
    open,
    prompt,
    /**
     * After the background writes the test did not await (a compaction's span archive and
     * knowledge records), as in host.ts: removing the tree under one fails with ENOTEMPTY on a
     * loaded machine. Never rejects (most callers do not await it).
     */
    cleanup(): Promise<void> {
      faux.unregister();
      return backgroundWritesSettled()
        .then(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }))
        .catch(() => undefined);
    },
  };
}

export type Standalone = Awaited<ReturnType<typeof makeStandalone>>;
