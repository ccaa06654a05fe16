/**
 * A reader that stops early (`openclaw-context list | head -1`) closes our stdout. Node reports
 * that as an EPIPE 'error' event on the stream, which unhandled prints a stack trace and exits 1.
 * A closed pipe is the reader's choice, not a failure: the rest of the output is dropped, the
 * command still finishes what it does (a prune is not cut short) and its exit code stands. Any
 * other error of a stream is one line on stderr (when stderr still works) and exit 1.
 */
import { EXIT_PROBLEM } from "./errors.js";

export interface WatchedStreams {
  /** the command's exit code, or EXIT_PROBLEM when a stream failed other than by a closed pipe */
  exitCode(commandCode: number): number;
}

export function watchOutputStreams(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): WatchedStreams {
  let failed = false;
  for (const stream of streams) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") return;
      failed = true;
      if (stream !== process.stderr && writable(process.stderr)) process.stderr.write(`openclaw-context: cannot write output: ${e.code ?? e.message}\n`);
    });
  }
  return { exitCode: (code) => (failed && code === 0 ? EXIT_PROBLEM : code) };
}

/** false once the stream's reader went away (the stream is destroyed after the EPIPE). */
export function writable(stream: NodeJS.WritableStream & { destroyed?: boolean }): boolean {
  return stream.writable && !stream.destroyed;
}
