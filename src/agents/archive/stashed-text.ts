/**
 * With `offload` on the session holds a large tool result as handle + preview; the archive indexes
 * the stashed payload instead (redacted when stashed), so search finds what offload replaced.
 */
import { STASHED_MARKER } from "../artifacts/preview.js";
import { HANDLE_PREFIX } from "../artifacts/handle.js";
import { readArtifact } from "../artifacts/store.js";

/** A replacement's text -> the stashed payload, or null (not a replacement, artifact gone). */
export type ExpandStashed = (text: string) => string | null;

const HANDLE_LINE = /^handle: (ocm_artifact:v1:sha256:[0-9a-f]{64})$/m;

export function stashedTextResolver(stateDir: string): ExpandStashed {
  return (text) => {
    if (!text.startsWith(STASHED_MARKER)) return null;
    // the handle line is the replacement's second line (preview.ts replacementText)
    const m = HANDLE_LINE.exec(text.slice(0, 400));
    if (!m || !m[1]!.startsWith(HANDLE_PREFIX)) return null;
    try {
      return readArtifact(stateDir, m[1]!);
    } catch {
      return null; // collected or unreadable: the preview is what is left
    }
  };
}
