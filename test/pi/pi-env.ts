/**
 * A throwaway pi home for the real `pi` CLI: agent dir (settings.json), state dir, project dir,
 * and the faux recorder provider (fixtures/faux-recorder.ts) whose request log the tests read.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { REPO, run } from "../cli/run.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

export const PI = join(REPO, "node_modules", ".bin", "pi");
export const CONTEXT_MANAGER_TS = join(REPO, "src", "agents", "pi-extensions", "context-manager.ts");
export const FAUX_RECORDER = join(REPO, "test", "pi", "fixtures", "faux-recorder.ts");
/** 2k window; its reply says whether the request carried the gauge line */
export const FAUX_GAUGE_PROVIDER = join(REPO, "test", "cli", "fixtures", "faux-gauge-provider.ts");

export interface FauxRequest {
  kind: "chat" | "summary";
  texts: string[];
}

export interface PiHome {
  root: string;
  agentDir: string;
  stateDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** flags that keep pi to this test's extensions and the faux model */
  baseArgs(extensions?: string[], provider?: string): string[];
  requests(): FauxRequest[];
  cleanup(): void;
}

export async function makePiHome(opts: { settings?: Record<string, unknown>; window?: number; replyChars?: number } = {}): Promise<PiHome> {
  const root = await mkdtemp(join(tmpdir(), "cm-pi-"));
  const agentDir = join(root, "agent");
  const stateDir = join(root, "state");
  const cwd = join(root, "project");
  for (const d of [agentDir, stateDir, cwd]) mkdirSync(d, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false }, ...opts.settings }));
  const log = join(root, "faux.jsonl");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PI_CODING_AGENT_DIR: agentDir,
    OPENCLAW_STATE_DIR: stateDir,
    FAUX_LOG: log,
    FAUX_WINDOW: String(opts.window ?? 4000),
    FAUX_REPLY_CHARS: String(opts.replyChars ?? 1200),
  };
  return {
    root,
    agentDir,
    stateDir,
    cwd,
    env,
    baseArgs(extensions = [CONTEXT_MANAGER_TS], provider = FAUX_RECORDER) {
      const args = ["--offline", "--no-extensions", "--no-skills", "--no-context-files", "--no-prompt-templates", "--no-themes", "--no-tools"];
      for (const e of [...extensions, provider]) args.push("-e", e);
      return [...args, "--provider", "fauxcli", "--model", "tiny"];
    },
    requests() {
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {
        return [];
      }
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as FauxRequest);
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export const startsWith = (req: FauxRequest, header: string) => req.texts.filter((t) => t.startsWith(header));

/** A prompt of ~1.4k tokens: three of them pass a 4k window's threshold. */
export const longQuestion = (i: number) => `Question ${i}: ${"please consider this carefully ".repeat(180)}`;
/** A prompt of ~1.8k tokens for the 32k-window RPC runs. */
export const bigPrompt = (label: string) => `${label}: ${"describe the module layout in detail ".repeat(220)}`;

/** `pi -p` with the first prompt, then `pi -p -c` with each next one: one process per prompt, each must exit 0 without an extension error. */
export async function printTurns(home: PiHome, prompts: readonly string[]): Promise<void> {
  for (let i = 0; i < prompts.length; i++) {
    const args = ["-p", ...(i > 0 ? ["-c"] : []), ...home.baseArgs(), prompts[i]!];
    const r = await run(PI, args, { cwd: home.cwd, env: home.env, timeoutMs: CHILD_TIMEOUT_MS });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Extension error|context-manager/);
  }
}

/** The `summary` of every compaction entry in the home's pi session files. */
export function compactionSummaries(home: PiHome): string[] {
  const out: string[] = [];
  const root = join(home.agentDir, "sessions");
  for (const d of readdirSync(root)) {
    for (const f of readdirSync(join(root, d))) {
      for (const line of readFileSync(join(root, d, f), "utf8").split("\n")) {
        if (line.includes('"type":"compaction"')) out.push(String((JSON.parse(line) as { summary?: string }).summary));
      }
    }
  }
  return out;
}
