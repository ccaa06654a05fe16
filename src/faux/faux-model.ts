/**
 * The embedded default model: pi-ai's faux provider, driven by a responder
 * function, with the usage accounting fixed so that context percentages are
 * what a real provider would report.
 */
import {
  type AssistantMessage,
  type Context,
  type Model,
  registerFauxProvider,
  type FauxProviderRegistration,
} from "@mariozechner/pi-ai";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";

export type FauxResponder = (context: Context, callIndex: number) => AssistantMessage | Promise<AssistantMessage>;

export interface FauxModelHandle {
  registration: FauxProviderRegistration;
  model: Model<string>;
  provider: string;
  /** every request the model received, in order (shared by chat and summarizer calls) */
  requests: Context[];
  /** chat requests rejected as over the window (enforceWindow) */
  overflowRejections: number;
  setResponder(responder: FauxResponder): void;
  unregister(): void;
}

export const SUMMARIZER_PROMPT_PREFIX = "You are a context summarization assistant";

export function isSummarizerRequest(context: Context): boolean {
  return context.systemPrompt?.startsWith(SUMMARIZER_PROMPT_PREFIX) ?? false;
}

export function registerFauxModel(opts: {
  provider?: string;
  modelId?: string;
  contextWindow: number;
  maxTokens?: number;
  /**
   * Reject a chat request whose prompt is over the window with the error text a real
   * provider returns (Anthropic's "prompt is too long"), so pi's overflow compaction runs
   * as it would for real. Summarizer requests are not checked (the faux summarizer stands
   * in for a model with its own window).
   */
  enforceWindow?: boolean;
}): FauxModelHandle {
  const provider = opts.provider ?? "faux";
  const modelId = opts.modelId ?? "faux-coder";
  const registration = registerFauxProvider({
    provider,
    models: [{ id: modelId, contextWindow: opts.contextWindow, maxTokens: opts.maxTokens ?? 2048, input: ["text"] }],
  });
  const requests: Context[] = [];
  let responder: FauxResponder = () => {
    throw new Error("faux model: no responder set");
  };
  const step = (context: Context) => {
    // tools carry functions: keep a data-only copy of what the provider saw
    requests.push(structuredClone({ systemPrompt: context.systemPrompt, messages: context.messages }));
    if (opts.enforceWindow && !isSummarizerRequest(context)) {
      const tokens = fauxPromptTokens(context);
      if (tokens > opts.contextWindow) {
        handle.overflowRejections++;
        // thrown: the faux provider turns it into stopReason "error" with this errorMessage
        throw new Error(`prompt is too long: ${tokens} tokens > ${opts.contextWindow} maximum`);
      }
    }
    return responder(context, requests.length - 1);
  };
  // The faux provider consumes one queued step per call; keep the queue topped up.
  const refill = () => registration.setResponses(Array.from({ length: 10_000 }, () => step));
  refill();
  const handle: FauxModelHandle = {
    overflowRejections: 0,
    registration,
    model: registration.getModel(),
    provider,
    requests,
    setResponder(next) {
      responder = next;
      if (registration.getPendingResponseCount() < 1000) refill();
    },
    unregister: () => registration.unregister(),
  };
  return handle;
}

/**
 * Prompt tokens as pi-ai's faux provider counts them for `usage` (chars / 4, rounded up, of
 * its serialization: system prompt, each message as "role:text", tools as JSON), so the
 * window check agrees with the usage the gauge reads.
 */
export function fauxPromptTokens(context: Context): number {
  const parts: string[] = [];
  if (context.systemPrompt) parts.push(`system:${context.systemPrompt}`);
  for (const m of context.messages) parts.push(`${m.role}:${fauxMessageText(m)}`);
  if (context.tools?.length) parts.push(`tools:${JSON.stringify(context.tools)}`);
  return Math.ceil(parts.join("\n\n").length / 4);
}

function fauxContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string; mimeType?: string; data?: string }) =>
      b.type === "text" ? (b.text ?? "") : `[image:${b.mimeType}:${b.data?.length ?? 0}]`,
    )
    .join("\n");
}

function fauxMessageText(m: Context["messages"][number]): string {
  if (m.role === "user") return fauxContentText(m.content);
  if (m.role === "assistant") {
    return m.content
      .map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : `${b.name}:${JSON.stringify(b.arguments)}`))
      .join("\n");
  }
  return [m.toolName, ...m.content.map((b) => fauxContentText([b]))].join("\n");
}

/**
 * pi-ai's faux provider simulates prompt caching and reports the uncached
 * suffix twice (`input` and `cacheWrite`), so `totalTokens` over-counts. This
 * extension rewrites faux usage to input + cacheRead + output, as a real
 * provider reports it (message_end replacements are applied in place).
 */
export function fauxUsageFixExtension(fauxApi: string): ExtensionFactory {
  return (pi) => {
    pi.on("message_end", (event) => {
      const message = event.message as AssistantMessage;
      if (message.role !== "assistant" || message.api !== fauxApi || !message.usage) return undefined;
      const u = message.usage;
      return { message: { ...message, usage: { ...u, cacheWrite: 0, totalTokens: u.input + u.cacheRead + u.output } } };
    });
  };
}

/** Plain text of any Pi message (text blocks only), for responders and tests. */
export function messageText(message: { role: string; content?: unknown }): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) => (b && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}
