/**
 * The Session of a pi SessionManager (one per OpenClaw run or pi CLI session), made on first use from
 * the runtime the host set for it or the standalone one; kept in a WeakMap every module copy shares.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@mariozechner/pi-coding-agent";
import type { SessionEntry } from "@mariozechner/pi-coding-agent";
import { type ContextManagerConfig, ContextManagerConfigError, resolveContextManagerConfig } from "../config/context-manager-config.js";
import { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { warnSafely } from "../../infra/log-once.js";
import { checkpointSessionDir, defaultStateDir, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import { processServices } from "../../infra/process-services.js";
import { debugLog, enableDebugFromConfig } from "../../infra/debug-log.js";
import type { ContextManagerRuntimeValue } from "../engine/runtime.js";
import type { RequestHost, RequestRecord } from "../engine/request-log.js";
import type { HostModel } from "../cache/cache-rules.js";
import { readLatestCheckpoint } from "../checkpoint/files.js";
import { type RestoreKind, restoreBlockOf } from "../engine/restore-block.js";
import { formatGaugeLine } from "../gauge/gauge-line.js";
import { gaugeAction } from "../gauge/context-gauge.js";
import { REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { breakdownBar, breakdownTable } from "../breakdown/render.js";
import { formatReuse } from "../prompt-cost/reuse.js";
import { isCheckpointCompactionDetails } from "../engine/compaction.js";

export type { ContextManagerRuntimeValue } from "../engine/runtime.js";
export type ReadonlySessionManager = ExtensionContext["sessionManager"];

/** What the shell keeps of one SessionManager. */
interface ManagerSlot {
  runtime?: ContextManagerRuntimeValue;
  session?: Promise<ContextManagerEngine>;
}

declare module "../../infra/process-services.js" {
  interface ProcessServices { piManagerSlots?: WeakMap<object, ManagerSlot> } // by pi SessionManager, dropped with it
}

const registry = (): WeakMap<object, ManagerSlot> => (processServices().piManagerSlots ??= new WeakMap());
const badKeyLogged = new WeakSet<object>();

const slotOf = (sm: object): ManagerSlot => registry().get(sm) ?? registry().set(sm, {}).get(sm)!;

export function setContextManagerRuntime(sessionManager: object, value: ContextManagerRuntimeValue): void {
  slotOf(sessionManager).runtime = value;
}

export function getContextManagerRuntime(sessionManager: object): ContextManagerRuntimeValue | undefined {
  return registry().get(sessionManager)?.runtime;
}

/** Runtime for a pi CLI session with no host: one session key per workspace. */
export function standaloneRuntime(cwd: string, config?: ContextManagerConfig): ContextManagerRuntimeValue {
  const cfg = config ?? resolveContextManagerConfig({});
  // pi's own reserve where its settings files set one (its default is the config key's default)
  const reserve = piCompactionSet(cwd).reserveTokens;
  return {
    ...(reserve === undefined ? {} : { hostReserveTokens: reserve }),
    sessionKey: `pi:${resolve(cwd)}`,
    contextWindowTokens: 0, // 0: take the window from the model at engine creation
    stateDir: cfg.stateDir ?? defaultStateDir(),
    config: cfg,
    agentId: "pi",
    channel: "pi",
    hostInjectsRestore: false,
  };
}

/** What engine creation needs, captured while an event runs (SessionCapture). */
export interface EngineSessionView {
  sessionManager: Pick<ReadonlySessionManager, "getEntries" | "getSessionId" | "getSessionFile">;
  /** the workspace, when known (the engine records workspace drift against it) */
  cwd: string | null;
  /** the context window when the runtime has none (standalone) */
  contextWindow: () => number;
}

/** The Session of this session manager (one per run); null when the manager is disabled. */
export async function sessionForView(
  view: EngineSessionView,
  fallback?: () => ContextManagerRuntimeValue | undefined,
): Promise<ContextManagerEngine | null> {
  const slot = slotOf(view.sessionManager);
  if (slot.session) return slot.session;
  const runtime = slot.runtime ?? fallback?.();
  if (!runtime || !runtime.config.enabled) return null;
  // a runtime set with a key that is not one: no engine, one line (the constructor would throw)
  if (hostSessionKey(runtime.sessionKey) === null) {
    const bad = `the session key is ${describeBadKey(runtime.sessionKey)}, not a string`;
    if (!badKeyLogged.has(runtime)) warnSafely(runtime.logger, `[context-manager] off for this session: ${bad}`);
    badKeyLogged.add(runtime);
    return null;
  }
  enableDebugFromConfig(runtime.config.debug);
  return (slot.session = Promise.resolve().then(() => {
    const sm = view.sessionManager;
    const identity = {
      sessionId: runtime.sessionId ?? sm.getSessionId(),
      sessionFile: runtime.sessionFile ?? sm.getSessionFile() ?? null,
      compactionsSoFar: sm.getEntries().filter((e) => e.type === "compaction").length,
      cwd: view.cwd,
    };
    return new ContextManagerEngine({ ...runtime, contextWindowTokens: runtime.contextWindowTokens || view.contextWindow() }, identity);
  }));
}

export type LiveCtx = Pick<ExtensionContext, "sessionManager" | "cwd" | "getContextUsage">;

/** sessionForView for a LIVE ctx (OpenClaw's safeguard hook calls this inside its event). */
export function sessionFor(
  ctx: LiveCtx,
  fallback?: () => ContextManagerRuntimeValue | undefined,
): Promise<ContextManagerEngine | null> {
  const cwd = safely("ctx.cwd", () => (typeof ctx.cwd === "string" ? ctx.cwd : null)) ?? null;
  return sessionForView({ sessionManager: ctx.sessionManager, cwd, contextWindow: () => ctx.getContextUsage()?.contextWindow ?? 0 }, fallback);
}

/** What `read` returns from pi's ctx, undefined when it throws (a stale ctx; the debug switch shows it). */
function safely<T>(what: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    debugLog(what, e);
    return undefined;
  }
}

/**
 * pi invalidates a replaced or disposed session's ctx (print mode, during a threshold compaction), and
 * its getters throw: each live event refreshes these values, a stale one reads them.
 */
export interface CapturedSession {
  sessionManager: ReadonlySessionManager;
  cwd: string;
  /** the model's context window at the last live event, 0 when unknown */
  contextWindow: number;
}

export class SessionCapture {
  private last: CapturedSession | null = null;

  /** Fresh values from a live ctx, else those of the last live event (null before any). */
  from(ctx: ExtensionContext, event: string): CapturedSession | null {
    try {
      const { sessionManager, cwd } = ctx;
      const contextWindow = safely("ctx.model", () => ctx.model?.contextWindow ?? 0) ?? this.last?.contextWindow ?? 0;
      return (this.last = { sessionManager, cwd, contextWindow });
    } catch (e) {
      debugLog(`${event}: ctx is stale, using the values captured at the last live event`, e);
      return this.last;
    }
  }
}

// What the shell reads of pi for a request besides the messages (a stale ctx reads as unknown): usage,
// model, and for the breakdown the system prompt, the active tools and where pi compacts (lazily).

/** pi's default `compaction.reserveTokens`. */
const PI_DEFAULT_RESERVE_TOKENS = 16_384;

export function piRequestHost(pi: ExtensionAPI, ctx: ExtensionContext, cwd: string | null, contextWindow: () => number): RequestHost {
  return {
    systemPrompt: safely("getSystemPrompt", () => ctx.getSystemPrompt()) ?? null,
    tools: () =>
      safely("getAllTools", () => {
        const active = new Set(pi.getActiveTools());
        return pi.getAllTools().filter((t) => active.has(t.name));
      }) ?? null,
    compactionAt: () => {
      const window = contextWindow();
      if (!cwd || window <= 0) return null;
      const c = piCompactionSet(cwd);
      return (c.enabled ?? true) ? window - (c.reserveTokens ?? PI_DEFAULT_RESERVE_TOKENS) : null;
    },
  };
}

/** pi's context usage; undefined when unknown or the ctx is stale. */
export const safeUsage = (ctx: ExtensionContext) => safely("getContextUsage", () => ctx.getContextUsage());

/**
 * The model pi sends the request to, for the prompt-cache rules (pi-ai reads PI_CACHE_RETENTION for the
 * TTL); undefined for a stale ctx: the rules fall back to the config's choice.
 */
export function piModelOf(ctx: ExtensionContext): HostModel | undefined {
  return safely("ctx.model", () => {
    const m = ctx.model;
    return { provider: m?.provider ?? null, api: m?.api ?? null, id: m?.id ?? null, retention: process.env.PI_CACHE_RETENTION ?? null };
  });
}

// pi's settings files (`<agentDir>/settings.json`, `<cwd>/.pi/settings.json`; the project's wins key by
// key): standalone pi's `contextManager` key (OpenClaw's keys) and pi's compaction settings.

export const PI_SETTINGS_KEY = "contextManager";

export class PiSettingsError extends Error {
  override name = "PiSettingsError";
}

export function piSettingsFiles(cwd: string, agentDir: string = getAgentDir()): string[] {
  return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
}

function readSection(file: string): Record<string, unknown> | undefined {
  let section: unknown;
  try {
    section = (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> | null)?.[PI_SETTINGS_KEY];
  } catch (e) {
    if (!(e instanceof SyntaxError)) return undefined; // no file: nothing set there
    // pi itself reports a broken settings file; we only say that ours is not read from it
    throw new PiSettingsError(`${file}: not valid JSON (${e.message})`);
  }
  if (section === undefined) return undefined;
  try {
    resolveContextManagerConfig(section); // names the file of a bad key, before merging
  } catch (e) {
    if (!(e instanceof ContextManagerConfigError)) throw e;
    throw new PiSettingsError(`${file}: ${PI_SETTINGS_KEY}.${e.message.replace(/^agents\.defaults\.contextManager\./, "")}`);
  }
  return section as Record<string, unknown>;
}

/** The merged config for a pi session in `cwd`; throws PiSettingsError naming the file and key. */
export function loadPiContextManagerConfig(cwd: string, agentDir?: string): ContextManagerConfig {
  const merged: Record<string, unknown> = {};
  for (const file of piSettingsFiles(cwd, agentDir)) Object.assign(merged, readSection(file));
  try {
    return resolveContextManagerConfig(merged);
  } catch (e) {
    // a cross-key rule broken only by the merge (gaugeThreshold > checkpointThreshold)
    throw new PiSettingsError(`${piSettingsFiles(cwd, agentDir).join(" + ")}: ${(e as Error).message.replace(/^agents\.defaults\.contextManager\./, `${PI_SETTINGS_KEY}.`)}`);
  }
}

/** The compaction settings pi's settings files set (project wins); a key no file sets is absent. */
export function piCompactionSet(cwd: string): { enabled?: boolean; reserveTokens?: number } {
  const out: { enabled?: boolean; reserveTokens?: number } = {};
  for (const file of piSettingsFiles(cwd)) {
    try {
      const c = (JSON.parse(readFileSync(file, "utf8")) as { compaction?: { enabled?: unknown; reserveTokens?: unknown } } | null)?.compaction;
      if (typeof c?.enabled === "boolean") out.enabled = c.enabled;
      if (typeof c?.reserveTokens === "number" && Number.isFinite(c.reserveTokens) && c.reserveTokens >= 0) out.reserveTokens = c.reserveTokens;
    } catch {
      // no file or not JSON: pi reports a broken file itself
    }
  }
  return out;
}

// `/context` in pi: gauge, breakdown, latest checkpoint and its restore block (never sent to the model).

export interface ContextCommandDeps {
  session(ctx: ExtensionContext): CapturedSession | null;
  api(ctx: ExtensionContext): Promise<ContextManagerEngine | null>;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

export async function contextReport(ctx: ExtensionContext, deps: ContextCommandDeps): Promise<string> {
  const api = await deps.api(ctx);
  if (!api) return "[context-manager] not active in this session (disabled, or invalid settings: see the warning printed at startup).";
  const run = api.report((latest) => {
    const session = deps.session(ctx);
    return session ? nextRequestRecord(latest, session.sessionManager) : latest;
  });
  const { config, stateDir } = run.runtime;
  const lines = [`[context-manager] session key ${run.sessionKey}`, `state dir ${stateDir}`];

  const usage = safeUsage(ctx);
  if (usage && usage.tokens != null && usage.percent != null) {
    const reading = { tokens: usage.tokens, contextWindow: usage.contextWindow, utilization: usage.percent / 100, source: "sdk" as const };
    const action = gaugeAction(reading, config);
    lines.push(`Gauge: ${formatGaugeLine(reading, false)} (the model sees it from ${pct(config.gaugeThreshold)}; checkpoint at ${pct(config.checkpointThreshold)}; now: ${action})`);
  } else {
    lines.push(`Gauge: unknown until the next reply (pi reports no usage before the first reply and after a compaction)`);
  }

  if (run.breakdown === undefined) lines.push("Breakdown: none yet (no request sent in this session)");
  else if (!run.breakdown) lines.push("Breakdown: unavailable");
  else {
    const b = run.breakdown;
    lines.push(breakdownBar(b, run.window), ...breakdownTable(b, run.window, config.checkpointThreshold));
  }
  if (run.reuse) lines.push(`Last request: ${formatReuse(run.reuse)}`);

  // read once: the line naming the checkpoint and the block below are of the same one
  const latest = await readLatestCheckpoint({ stateDir }, run.sessionKey).catch(() => null);
  if (!latest) {
    lines.push("Latest checkpoint: none yet for this key.");
    return lines.join("\n");
  }
  const m = latest.meta;
  lines.push(
    `Latest checkpoint: ${m.checkpoint_id} (${m.trigger}, ${m.created_at}, ${m.token_usage.input_tokens} input tokens${m.session_id === run.sessionId ? ", this session" : ", an earlier session"})`,
    `  ${checkpointSessionDir(stateDir, run.sessionKey)}`,
  );
  const session = deps.session(ctx);
  const due = session ? restoreDue(session.sessionManager.getBranch()) : null;
  const kind = due?.kind ?? (m.session_id === run.sessionId ? "post-compaction" : "resume");
  const maxTokens = config.restoreMaxTokens;
  const block = safely("restore block", () => restoreBlockOf(latest, { stateDir, kind, maxTokens }));
  if (block) {
    lines.push(
      due
        ? `Restore block of ${m.checkpoint_id} due on the next prompt (${kind}, ~${block.tokens} tokens):`
        : `Restore block (none due now; this is how ${m.checkpoint_id} renders as ${kind}, ~${block.tokens} tokens):`,
      block.text,
    );
  }
  return lines.join("\n");
}

export function registerContextCommand(pi: ExtensionAPI, deps: ContextCommandDeps): void {
  pi.registerCommand("context", {
    description: "Context manager: gauge, latest checkpoint, and the restore block it would inject",
    handler: async (_args, ctx) => {
      const failed = (e: unknown) => `[context-manager] /context failed: ${(e as Error).message}`;
      const text = await contextReport(ctx, deps).catch(failed);
      pi.sendMessage({ customType: REPORT_CUSTOM_TYPE, content: text, display: true });
    },
  });
}

const stamp = (m: AgentMessage | undefined) => {
  const t = (m as { timestamp?: unknown } | undefined)?.timestamp;
  return typeof t === "number" ? t : -Infinity;
};

/** What pi's next request will hold: the last request as sent plus the session's messages after it. */
function nextRequestRecord(latest: RequestRecord, sm: Pick<ReadonlySessionManager, "getBranch">): RequestRecord {
  let newest = -Infinity;
  for (const m of latest.unaged) newest = Math.max(newest, stamp(m));
  // a stale session manager: the last request is what there is
  const branch = safely("getBranch", () => sm.getBranch() as Array<{ type?: string; message?: AgentMessage }>);
  if (!branch) return latest;
  const after = branch.filter((e) => e.type === "message" && stamp(e.message) > newest).map((e) => e.message!);
  if (after.length === 0) return latest;
  return { ...latest, unaged: [...latest.unaged, ...after], sent: [...latest.sent, ...after], final: [...latest.final, ...after] };
}

/**
 * Standalone pi's due restore, read from `branch` (sessionManager.getBranch(), root first; it holds across
 * processes): after a host-summarized compaction with no restore since, or on a session's first prompt.
 * `key`: the compaction entry id, or "resume" (one attempt each per process).
 */
export function restoreDue(branch: readonly SessionEntry[]): { kind: RestoreKind; key: string } | null {
  let sawMessage = false;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i]!;
    if (e.type === "custom_message" && e.customType === RESTORE_CUSTOM_TYPE) return null;
    if (e.type === "compaction") return isCheckpointCompactionDetails(e.details) ? null : { kind: "post-compaction", key: e.id };
    if (e.type === "message") sawMessage = true;
  }
  return sawMessage ? null : { kind: "resume", key: "resume" };
}
