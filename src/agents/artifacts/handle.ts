/**
 * Artifact handles (seed 004 §4.1): `ocm_artifact:v1:sha256:<64 lowercase hex>`. A handle
 * becomes a file path, so parsing is strict (no trimming or case folding) and says what is wrong.
 */

export const HANDLE_PREFIX = "ocm_artifact:v1:sha256:";
export const HANDLE_LENGTH = HANDLE_PREFIX.length + 64;
/** Finds handles inside larger text (gc), never for parsing input. */
export const HANDLE_IN_TEXT_RE = /ocm_artifact:v1:sha256:([0-9a-f]{64})(?![0-9a-fA-F])/g;

export class ArtifactHandleError extends Error {
  override readonly name = "ArtifactHandleError";
}

export function formatHandle(sha256Hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256Hex)) throw new ArtifactHandleError("a sha256 digest is 64 lowercase hex characters");
  return HANDLE_PREFIX + sha256Hex;
}

export function parseHandle(input: unknown): string {
  if (typeof input !== "string") throw new ArtifactHandleError(`an artifact handle is a string, got ${input === null ? "null" : typeof input}`);
  if (input.length === 0) throw new ArtifactHandleError("empty artifact handle");
  if (input.length > HANDLE_LENGTH) {
    throw new ArtifactHandleError(`artifact handle too long (${input.length} chars; a handle is exactly ${HANDLE_LENGTH}: ${HANDLE_PREFIX}<64 hex>)`);
  }
  if (!/^[\x21-\x7e]*$/.test(input)) throw new ArtifactHandleError("artifact handle must be printable ASCII without spaces");
  if (!input.startsWith(HANDLE_PREFIX)) {
    const hint = input.toLowerCase().startsWith(HANDLE_PREFIX) ? " (the prefix is lowercase)" : "";
    throw new ArtifactHandleError(`not an artifact handle: expected ${HANDLE_PREFIX}<64 hex>${hint}`);
  }
  const hex = input.slice(HANDLE_PREFIX.length);
  if (/[A-F]/.test(hex) && /^[0-9a-fA-F]*$/.test(hex)) throw new ArtifactHandleError("artifact handle digest must be lowercase hex");
  if (!/^[0-9a-f]*$/.test(hex)) throw new ArtifactHandleError("artifact handle digest may contain only 0-9 and a-f");
  if (hex.length !== 64) throw new ArtifactHandleError(`artifact handle digest is truncated (${hex.length} of 64 hex characters)`);
  return hex;
}

export function tryParseHandle(input: unknown): string | null {
  const valid = typeof input === "string" && /^ocm_artifact:v1:sha256:[0-9a-f]{64}$/.test(input);
  return valid ? input.slice(HANDLE_PREFIX.length) : null;
}
