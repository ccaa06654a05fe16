/**
 * The tokens the host keeps free below the window before it compacts, which smart trim's limit
 * and the cold-moment trim are placed under: the host's own reserve where the host reports it
 * (pi's `compaction.reserveTokens`, through the runtime value), else the config's
 * `smartTrimReserveTokens`. Placed under a larger reserve than the host's, the trims would cut
 * far below where the host compacts (docs/configuration.md#smart-trim).
 */
import type { ContextManagerRuntimeValue } from "./runtime.js";

export function reserveTokensOf(runtime: Pick<ContextManagerRuntimeValue, "hostReserveTokens" | "config">): number {
  const host = runtime.hostReserveTokens;
  return typeof host === "number" && Number.isFinite(host) && host >= 0 ? host : runtime.config.smartTrimReserveTokens;
}
