import { cutHead } from "./cut.js";
import { redactSecrets } from "./redact.js";

const JSON_MAX_DEPTH = 6;

/**
 * Compact JSON-like text of `value`, about `maxChars` long, that nothing makes throw or run long;
 * strings are redacted before quoting (`\nghp_…` hides a token).
 */
export function boundedJson(value: unknown, maxChars: number): string {
  let out = "";
  const seen = new Set<object>();
  const emit = (s: string): boolean => {
    out += s.length > maxChars - out.length ? cutHead(s, Math.max(0, maxChars - out.length)) : s;
    return out.length < maxChars;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === "string") return emit(JSON.stringify(redactSecrets(cutHead(v, maxChars))));
    if (typeof v === "number" || typeof v === "boolean") return emit(String(v));
    if (v === null || typeof v !== "object") return emit(v === null ? "null" : typeof v === "bigint" ? String(v) : "null");
    if (depth >= JSON_MAX_DEPTH || seen.has(v)) return emit("…");
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        if (!emit("[")) return false;
        for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(",")) || !walk(v[i], depth + 1)) return false;
        return emit("]");
      }
      if (!emit("{")) return false;
      let first = true;
      for (const k of Object.keys(v)) {
        if ((!first && !emit(",")) || !emit(`${JSON.stringify(redactSecrets(cutHead(k, maxChars)))}:`) || !walk((v as Record<string, unknown>)[k], depth + 1)) return false;
        first = false;
      }
      return emit("}");
    } catch {
      return emit("…"); // a throwing getter or proxy
    } finally {
      seen.delete(v);
    }
  };
  walk(value, 0);
  return out;
}
