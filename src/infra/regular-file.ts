/** Reads of regular files only (a FIFO would block, /dev/zero never ends): O_NONBLOCK, then fstat decides. */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, writeFileSync, promises as fsp } from "node:fs";
import { errorCode, type FsOps, tryOr } from "./fs-ops.js";

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

/**
 * A file this package parses: refused over the size it writes (a stray 30 MB file exhausted the heap),
 * FileTooLargeError over `maxBytes`, NotAFileError for what is not a regular file.
 */
export async function readTextCapped(fs: FsOps, file: string, maxBytes: number): Promise<string> {
  const st = await fs.stat(file);
  if (!st.isFile()) throw new NotAFileError(file);
  if (st.size > maxBytes) throw new FileTooLargeError(file, st.size, maxBytes);
  const text = await fs.readFile(file, "utf8");
  // it grew between the stat and the read
  if (text.length > maxBytes) throw new FileTooLargeError(file, text.length, maxBytes);
  return text;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A read handle on `file`; NotAFileError when it (or what a symlink names) is not a regular file. */
export async function openRegularFile(file: string): Promise<fsp.FileHandle> {
  const fh = await fsp.open(file, READ_FLAGS);
  try {
    if (!(await fh.stat()).isFile()) throw new NotAFileError(file);
    return fh;
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/** Reads `len` bytes at `position` into `buf` (from 0); fewer only at the end of the file. The count read. */
export async function readRange(fh: fsp.FileHandle, buf: Buffer, len: number, position: number): Promise<number> {
  let read = 0;
  while (read < len) {
    const { bytesRead } = await fh.read(buf, read, len - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read;
}

/** The whole regular file's text (`fsp.readFile` with the check above). */
export async function readRegularFile(file: string, encoding: "utf8"): Promise<string> {
  const fh = await openRegularFile(file);
  return fh.readFile(encoding).finally(() => fh.close().catch(() => undefined));
}

/** A sync read descriptor on `file` and its size, as `openRegularFile`. */
export function openRegularFileSync(file: string): { fd: number; size: number } {
  const fd = openSync(file, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotAFileError(file);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function withRegularFileSync<T>(file: string, read: (fd: number, size: number) => T): T {
  const { fd, size } = openRegularFileSync(file);
  try {
    return read(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** The whole regular file, synchronously (`readFileSync` with the check above). */
export const readRegularFileSync = (file: string) => withRegularFileSync(file, (fd) => readFileSync(fd, "utf8"));

/** A whole regular file of at most `max` bytes, synchronously; null on any failure ("unknown"). */
export function readSmallRegularFileSync(file: string, max: number): Buffer | null {
  return tryOr(() => withRegularFileSync(file, (fd, size) => (size > max ? null : readAtSync(fd, 0, size))), null);
}

/** `len` bytes at `pos` of `fd`; fewer only at the end of the file. */
export function readAtSync(fd: number, pos: number, len: number): Buffer {
  const buf = Buffer.allocUnsafe(len);
  let off = 0;
  while (off < len) {
    const n = readSync(fd, buf, off, len - off, pos + off);
    if (n === 0) break;
    off += n;
  }
  return off === len ? buf : buf.subarray(0, off);
}

/** Appends `data` to `file` (created with `mode`) only when it is a regular file (ENXIO: a FIFO). */
export function appendRegularFileSync(file: string, data: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0), mode);
  } catch (e) {
    throw errorCode(e) === "ENXIO" ? new NotAFileError(file) : e;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new NotAFileError(file);
    writeFileSync(fd, data, "utf8");
  } finally {
    closeSync(fd);
  }
}
