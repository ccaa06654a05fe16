/** What the prompt-cache policy remembers of a session key for the process (hosts make an engine per run). */
/** A gauge line as sent, re-inserted as it was after the message keyed `after` in every later request. */
export interface GaugeAnchor {
  after: string;
  text: string;
  timestamp: number;
  step: string;
  /** the host's messages before it (its index while that history is unchanged) */
  at: number;
}

/** A request's end: its cache entry covers the host's first `count` messages (and our lines among them). */
export interface RequestEnd {
  count: number;
  /** when it was written (the messages' clock): an entry no later request read lives one TTL from then */
  at: number;
}

export class CacheSession {
  /** the gauge lines still in the prompt, in the order sent */
  anchors: GaugeAnchor[] = [];
  /** the host's history the lines were last placed in: while only appended to, the lines go back by index */
  placed: { count: number; firstKey: string | null; lastKey: string | null } | null = null;
  /** when the previous request was prepared (null: none in this process) */
  lastRequestAt: number | null = null;
  /** messageKey of the previous request's first message: another one means the prompt was rewritten */
  firstKey: string | null = null;
  /** tokens of the previous request, and the mean growth per request (for the expected remaining requests) */
  lastTokens = 0;
  growth = 0;
  /** the latest requests' ends, ascending */
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
