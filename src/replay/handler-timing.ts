/**
 * Times extension handlers without touching the extensions: each factory gets a
 * proxy of its ExtensionAPI whose `on` registers a timed wrapper of the handler.
 * Plugged in through AgentRunnerOptions.wrapExtensionFactory.
 */
import type { ExtensionAPI, ExtensionFactory } from "@mariozechner/pi-coding-agent";

export interface HandlerSample {
  event: string;
  ms: number;
  /** event.messages.length for `context` events */
  messages: number;
  result: unknown;
  /** the event the handler was given */
  input?: unknown;
}

type AnyHandler = (event: unknown, ctx: unknown) => unknown;

export function timedFactory(
  factory: ExtensionFactory,
  events: ReadonlySet<string>,
  onStart: (event: string) => void,
  onSample: (s: HandlerSample) => void | Promise<void>,
): ExtensionFactory {
  return (pi) => {
    const on = (event: string, handler: AnyHandler) => {
      if (!events.has(event)) return (pi.on as (e: string, h: AnyHandler) => void)(event, handler);
      const timed: AnyHandler = async (ev, ctx) => {
        onStart(event);
        const t0 = performance.now();
        const result = await handler(ev, ctx);
        const ms = performance.now() - t0;
        const messages = (ev as { messages?: unknown[] }).messages?.length ?? 0;
        await onSample({ event, ms, messages, result, input: ev });
        return result;
      };
      return (pi.on as (e: string, h: AnyHandler) => void)(event, timed);
    };
    const proxy = new Proxy(pi, {
      get(target, prop) {
        if (prop === "on") return on;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as ExtensionAPI;
    return factory(proxy);
  };
}
