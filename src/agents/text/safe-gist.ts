import { cutHead } from "./cut.js";
import { asText, gist } from "./gist.js";
import { redactSecrets } from "./redact.js";

/** Redact a bounded window, gist, redact again (removed invisibles can join a token), cut to `maxChars`. */
export function safeGist(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  if (!text) return "";
  const raw = redactSecrets(cutHead(text, maxChars * 16 + 4096));
  const first = gist(raw, maxChars * 4 + 256);
  const redacted = redactSecrets(first);
  // a gist within the budget is its own gist: nothing left to do when the redaction changed nothing
  if (redacted === first && first.length <= maxChars) return first;
  return gist(redacted, maxChars);
}
