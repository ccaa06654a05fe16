/**
 * What the prompt-cache policy remembers of a session key for the process (engine/session.ts): hosts
 * make an engine per run (OpenClaw 2026.9: per turn), yet the next one must re-place the same gauge lines.
 */
/** A gauge line as sent: re-inserted with the same text after the same message in every later request. */
export interface GaugeAnchor {
  /** messageKey of the message the line follows */
  after: string;
  text: string;
  timestamp: number;
  /** the reading's step when it was sent: a new line only when the step moves */
  step: string;
  /** the host's messages before it (its place when the history before it is unchanged) */
  at: number;
}

/** What the latest request's gauge placement saw of the history: an unchanged prefix places the lines by index. */
export interface PlacedHistory {
  /** the host's messages in it (none of them a gauge line) */
  count: number;
  firstKey: string | null;
  lastKey: string | null;
}

/** A request's end: its cache entry covers the host's first `count` messages (and our lines among them). */
export interface RequestEnd {
  count: number;
  /** when it was written (the messages' clock): an entry no later request read lives one TTL from then */
  at: number;
}

export class CacheSession {
  /** the gauge lines still in the prompt, in the order they were sent */
  anchors: GaugeAnchor[] = [];
  /** the history the anchors were placed in last (null: judge the next request whole) */
  placed: PlacedHistory | null = null;
  /** when the previous request was prepared (null: none in this process) */
  lastRequestAt: number | null = null;
  /** messageKey of the previous request's first message: another one means the prompt was rewritten */
  firstKey: string | null = null;
  /** tokens of the previous request, and the mean growth per request (for the expected remaining requests) */
  lastTokens = 0;
  growth = 0;
  /** the latest requests' ends, ascending: where their cache entries end (the host's message count) and when written */
  ends: RequestEnd[] = [];
  /** requests prepared for this session in this process since its prompt was last rewritten whole */
  requests = 0;
  /** what the latest request's policy saw and decided (tests, diagnostics) */
  last: { family: string | null; cold: string | null; aging: string | null; gaugeLines: number } = { family: null, cold: null, aging: null, gaugeLines: 0 };
}

/** Gauge lines kept per session: far more than one context fill's steps. */
export const MAX_ANCHORS = 64;
/** Request ends kept per session for the lookback check. */
export const MAX_ENDS = 8;
