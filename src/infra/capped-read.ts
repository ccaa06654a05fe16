/** Reading a file this package parses, refused over the size it writes (a stray 30 MB file exhausted the heap). */
import type { FsOps } from "./fs-ops.js";

/** Thrown for a file over its cap; `code` as Node's own "file too big". */
export class FileTooLargeError extends Error {
  readonly code = "EFBIG";
  constructor(
    readonly file: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`file too large (${bytes} bytes, at most ${maxBytes} expected)`);
    this.name = "FileTooLargeError";
  }
}

/** Thrown for a path that is not a regular file (a FIFO would block a thread forever, /dev/zero never ends). */
export class NotAFileError extends Error {
  readonly code = "ENOTFILE";
  constructor(readonly file: string) {
    super("not a regular file");
    this.name = "NotAFileError";
  }
}

/** The file's text; FileTooLargeError over `maxBytes`, NotAFileError for what is not a regular file. */
export async function readTextCapped(fs: FsOps, file: string, maxBytes: number): Promise<string> {
  const st = await fs.stat(file);
  if (!st.isFile()) throw new NotAFileError(file);
  const { size } = st;
  if (size > maxBytes) throw new FileTooLargeError(file, size, maxBytes);
  const text = await fs.readFile(file, "utf8");
  // it grew between the stat and the read
  if (text.length > maxBytes) throw new FileTooLargeError(file, text.length, maxBytes);
  return text;
}
