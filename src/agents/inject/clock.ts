/** Times in a restore block: one zone for the whole block, shown by name; bad input never throws. */

export interface Clock {
  zoneLabel: string;
  parts(d: Date): { date: string; time: string };
}

export function makeClock(timeZone: string | undefined): Clock {
  const build = (tz: string): Intl.DateTimeFormat =>
    new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
  let fmt: Intl.DateTimeFormat;
  let zoneLabel = "UTC";
  try {
    fmt = build(timeZone ?? "UTC");
    // The zone name is host-provided config, but keep it to a token-like label.
    if (timeZone && /^[A-Za-z0-9_+\-/]{1,64}$/.test(timeZone)) zoneLabel = timeZone;
    else if (timeZone) fmt = build("UTC");
  } catch {
    fmt = build("UTC"); // unknown zone: render in UTC and say so
  }
  return {
    zoneLabel,
    parts(d) {
      const p: Record<string, string> = {};
      for (const part of fmt.formatToParts(d)) p[part.type] = part.value;
      return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
    },
  };
}

/** An ISO time as a Date; null when it is missing or not a time. */
export function parseDate(iso: unknown): Date | null {
  if (typeof iso !== "string") return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}
