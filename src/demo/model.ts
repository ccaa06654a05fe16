/** The model the demo runs on: the embedded faux model (scripted agent), or a real provider via pi-ai. */
import { type Context, getModel, type Model } from "@mariozechner/pi-ai";
import { AuthStorage, type ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { fauxUsageFixExtension, messageText, registerFauxModel } from "../faux/faux-model.js";
import { createScriptedAgent, type ScriptedAgent } from "../faux/scripted-agent.js";
import { DemoModelError } from "./errors.js";
import { assertProviderKey } from "./provider-key.js";

export const GAUGE_LINE_RE = /\[Context: \d+% \| [^\]\n]*\]/;

export interface DemoModel {
  model: Model<any>;
  authStorage: AuthStorage;
  extraExtensionFactories: ExtensionFactory[];
  /** the scripted agent (faux only); null for a real provider */
  agent: ScriptedAgent | null;
  /** calls `fn` with the gauge line of each model request that carries one */
  onGaugeSeen(fn: (line: string) => void): void;
  dispose(): void;
}


/** The gauge line the model saw: the last message whose text starts with "[Context:". */
export function gaugeLineOf(context: Context): string | null {
  for (let i = context.messages.length - 1; i >= 0; i--) {
    const t = messageText(context.messages[i] as { role: string; content?: unknown });
    if (t.startsWith("[Context:")) return t.split("\n")[0]!;
  }
  return null;
}

export function fauxDemoModel(contextWindow: number): DemoModel {
  const faux = registerFauxModel({ contextWindow, maxTokens: 2048 });
  const agent = createScriptedAgent("Done.");
  faux.setResponder(agent.responder);
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.provider, "faux-key");
  return {
    model: faux.model,
    authStorage,
    extraExtensionFactories: [fauxUsageFixExtension(faux.registration.api)],
    agent,
    onGaugeSeen(fn) {
      agent.onChat((ctx) => {
        const line = gaugeLineOf(ctx);
        if (line) fn(line);
      });
    },
    dispose: () => faux.unregister(),
  };
}

export function realDemoModel(provider: string, modelId: string, contextWindow: number | null): DemoModel {
  const apiKey = assertProviderKey(provider);
  let model: Model<any> | undefined;
  try {
    model = getModel(provider as never, modelId as never) as Model<any> | undefined;
  } catch {
    model = undefined;
  }
  if (!model) throw new DemoModelError(`unknown model "${modelId}" for provider "${provider}" (pi-ai's getModel has no such model)`);
  if (contextWindow) model = { ...model, contextWindow };
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(provider, apiKey);
  let seen: ((line: string) => void) | null = null;
  // A real provider's request payload is provider-specific JSON: find the gauge line in it.
  const observer: ExtensionFactory = (pi) => {
    pi.on("before_provider_request", (event) => {
      const m = GAUGE_LINE_RE.exec(JSON.stringify(event.payload ?? ""));
      if (m && seen) seen(m[0]);
      return undefined;
    });
  };
  return {
    model,
    authStorage,
    extraExtensionFactories: [observer],
    agent: null,
    onGaugeSeen(fn) {
      seen = fn;
    },
    dispose() {},
  };
}
