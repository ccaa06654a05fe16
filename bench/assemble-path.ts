/**
 * How much product code one `assemble` of a warm session runs (issue 38: the plugin's assemble
 * path): the OpenClaw plugin as a gateway drives it (a new engine instance per turn, the slots kept
 * for the process), every turn of a real transcript but the last assembled and committed, then
 * the last turn's assemble under V8's precise coverage with call counts. Counts the functions of
 * src/ that ran (count > 0), the calls to them, and their files.
 *
 * `npx tsx bench/assemble-path.ts [transcript-name]` (default: pi-mono's large session, 88 turns);
 * `BENCH_ASSEMBLE_TOP=N` also lists the N functions called most.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ContextEngineShape } from "../src/openclaw-plugin/engine-types.js";
import { userText } from "../src/agents/messages/read.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";
import { pluginEngine } from "./plugin-harness.js";

const name = process.argv[2] ?? "badlogic__pi-mono__large-session";
const SRC = resolve(import.meta.dirname, "../src") + "/";

const messages = JSON.parse(readFileSync(join(TRANSCRIPTS_DIR, `${name}.json`), "utf8")) as AgentMessage[];
const starts = messages.flatMap((m, i) => (m.role === "user" && userText(m) ? [i] : []));
const stateDir = mkdtempSync(join(tmpdir(), "cm-bench-assemble-"));
const key = "agent:main:bench:assemble-path";
const assembleOf = (engine: ContextEngineShape, start: number) =>
  engine.assemble({ sessionId: "s1", sessionKey: key, messages: messages.slice(0, start), tokenBudget: 150_000, prompt: userText(messages[start]!) });

try {
  // the warm session: every turn before the last, as the gateway runs them
  for (const [k, start] of starts.slice(0, -1).entries()) {
    const engine = pluginEngine(stateDir);
    await assembleOf(engine, start);
    await engine.commitTurn({ advancementKey: `turn-${k}`, sessionId: "s1", sessionKey: key, messages: messages.slice(start, starts[k + 1]), runtimeContext: { modelContextWindow: 150_000, tokenBudget: 150_000 } });
    await engine.dispose();
  }
  const engine = pluginEngine(stateDir);
  const inspector = new Session();
  inspector.connect();
  await inspector.post("Profiler.enable");
  await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  await inspector.post("Profiler.takePreciseCoverage"); // the counts start from here
  await assembleOf(engine, starts.at(-1)!);
  const { result } = await inspector.post("Profiler.takePreciseCoverage");
  await inspector.post("Profiler.stopPreciseCoverage");
  inspector.disconnect();
  let functions = 0;
  let calls = 0;
  const perFunction: { name: string; calls: number }[] = [];
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith("file:")) continue;
    const file = fileURLToPath(script.url);
    if (!file.startsWith(SRC)) continue;
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0;
      // the module's top level ran at import, not in this assemble
      if (count === 0 || fn.functionName === "" && fn.ranges[0]?.startOffset === 0) continue;
      functions++;
      calls += count;
      files.add(file.slice(SRC.length));
      perFunction.push({ name: `${file.slice(SRC.length)}:${fn.functionName || "(anonymous)"}`, calls: count });
    }
  }
  await engine.dispose();
  const top = perFunction.sort((a, b) => b.calls - a.calls).slice(0, Number(process.env.BENCH_ASSEMBLE_TOP ?? 0));
  console.log(JSON.stringify({ transcript: name, turnsBefore: starts.length - 1, functions, calls, files: files.size, ...(top.length ? { top } : {}) }));
} finally {
  // once the background writes (archive, artifact refs) have settled
  process.once("beforeExit", () => rmSync(stateDir, { recursive: true, force: true }));
}
