/**
 * A scripted "LLM" for the faux provider: chat requests are answered from a
 * queue of assistant messages (tool calls, then text), summarizer requests by
 * a summary function. Deterministic, so tests and the demo see the same run.
 */
import { type AssistantMessage, type Context, fauxAssistantMessage } from "@mariozechner/pi-ai";
import { isSummarizerRequest, type FauxResponder } from "./faux-model.js";

export interface ScriptedAgent {
  responder: FauxResponder;
  /** queue replies for the coming chat requests, in order */
  queue(...replies: AssistantMessage[]): void;
  pending(): number;
  chatRequests: Context[];
  summarizerRequests: Context[];
  /** replace how summarizer requests are answered (throw to simulate a failure) */
  onSummarize(fn: (context: Context) => AssistantMessage): void;
  /** called for each chat request before it is answered (tests inspect what the provider saw) */
  onChat(fn: ((context: Context) => void) | null): void;
}

export function createScriptedAgent(defaultReply = "Done."): ScriptedAgent {
  const replies: AssistantMessage[] = [];
  const chatRequests: Context[] = [];
  const summarizerRequests: Context[] = [];
  let summarize = (_c: Context) => fauxAssistantMessage("## Goal\nContinue the user's task.\n\n## Progress\nSee the checkpoint restore.");
  let chatHook: ((context: Context) => void) | null = null;
  return {
    responder(context) {
      if (isSummarizerRequest(context)) {
        summarizerRequests.push(context);
        return summarize(context);
      }
      chatRequests.push(context);
      chatHook?.(context);
      // stamped at response time, as a real provider's reply is (replies are often queued earlier)
      const next = replies.shift() ?? fauxAssistantMessage(defaultReply);
      return { ...next, timestamp: Date.now() };
    },
    queue: (...r) => void replies.push(...r),
    pending: () => replies.length,
    chatRequests,
    summarizerRequests,
    onSummarize(fn) {
      summarize = fn;
    },
    onChat(fn) {
      chatHook = fn;
    },
  };
}
