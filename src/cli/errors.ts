/** A user-facing CLI failure: one line on stderr and an exit code, never a stack trace. */
export const EXIT_OK = 0;
/** a problem with the data: missing state dir, unknown key, corrupt checkpoint, verify failures */
export const EXIT_PROBLEM = 1;
/** the command line itself is wrong */
export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_PROBLEM,
  ) {
    super(message);
    this.name = "CliError";
  }
}
