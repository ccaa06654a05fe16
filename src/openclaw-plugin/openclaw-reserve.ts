/**
 * pi's compaction reserve as OpenClaw's config sets it, for smart trim and the cold-moment trim
 * (engine/host-reserve.ts): `agents.defaults.compaction.reserveTokens`, raised to
 * `reserveTokensFloor` when that is set too (OpenClaw raises the reserve it gives pi to the
 * floor). Undefined when the config sets no reserve: OpenClaw's default floor and its cap by the
 * model's window are not modelled here, so the plugin's `smartTrimReserveTokens` applies.
 */
export function openClawReserveTokens(config: unknown): number | undefined {
  const c = (config as { agents?: { defaults?: { compaction?: { reserveTokens?: unknown; reserveTokensFloor?: unknown } } } } | null | undefined)?.agents?.defaults?.compaction;
  const reserve = tokens(c?.reserveTokens);
  if (reserve === undefined) return undefined;
  const floor = tokens(c?.reserveTokensFloor);
  return floor === undefined ? reserve : Math.max(reserve, floor);
}

function tokens(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}
