/** A demo setup problem the user can fix (missing key, unknown model): one line, exit 2. */
export class DemoModelError extends Error {}
