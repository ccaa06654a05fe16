/**
 * The OpenClaw plugin as the benches drive it: registered with a stand-in of OpenClaw's plugin
 * API, the parts a bench calls handed back (the context engine of one turn; the compaction
 * provider with its before_compaction hook), and the provider benches' input promotion.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { registerContextManagerPlugin } from "../src/openclaw-plugin/index.js";
import type { CompactionProviderShape, ContextEngineShape, PluginApiShape } from "../src/openclaw-plugin/engine-types.js";

/** A new engine instance, as OpenClaw 2026.9's factory makes one per logical turn. */
export function pluginEngine(stateDir: string): ContextEngineShape {
  let engine: ContextEngineShape | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir },
    registerContextEngine: (_id, factory) => void (engine = factory({ workspaceDir: "/ws" }) as ContextEngineShape),
    registerTool: () => undefined,
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  return engine!;
}

/** The compaction provider and the before_compaction hook OpenClaw calls before it (the session's messages and key). */
export function providerEntry(stateDir: string): { provider: CompactionProviderShape; hook: (e: unknown, c: unknown) => unknown } {
  let provider: CompactionProviderShape | null = null;
  let hook: ((e: unknown, c: unknown) => unknown) | null = null;
  registerContextManagerPlugin({
    id: "context-manager",
    pluginConfig: { stateDir },
    logger: { warn: (m: string) => process.stderr.write(`${m}\n`) },
    registerContextEngine: () => undefined,
    registerCompactionProvider: (p) => void (provider = p),
    on: (name, h) => void (name === "before_compaction" && (hook = h)),
  });
  return { provider: provider!, hook: hook! };
}

/**
 * Moves the input the harness just built out of V8's young generation, outside the timing: two
 * scavenges (a survivor of two is promoted). OpenClaw's history is long-lived, in the old
 * generation; 1,000 freshly cloned messages are not, and the first scavenge inside the call would
 * copy every one of them (the harness's work, timed as the call's). A scavenge leaves no sweeping
 * to helper threads, unlike the full `gc()` of `--expose-gc`. `BENCH_PROVIDER_INPUT=young`: the
 * earlier harness (the input left where it was built).
 */
export function inputPromoter(): (() => void) | null {
  if (process.env.BENCH_PROVIDER_INPUT === "young") return null;
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (o: { type: "minor" }) => void;
  return () => {
    gc({ type: "minor" });
    gc({ type: "minor" });
  };
}
