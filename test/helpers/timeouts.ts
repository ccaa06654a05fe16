/**
 * Every timeout of the suite, from one setting: OPENCLAW_TEST_TIMEOUT_MS (default 240 s), the
 * longest a child process (pi, the CLI, the demo, a crash-loop writer) may run before it is
 * killed. A test's own timeout is twice that. Nothing asserts on elapsed time: on a loaded 2-core
 * machine everything is slower, and these only bound a hang. Raise it on a slower machine.
 */
const fromEnv = Number(process.env.OPENCLAW_TEST_TIMEOUT_MS);

export const CHILD_TIMEOUT_MS = Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 240_000;
export const TEST_TIMEOUT_MS = 2 * CHILD_TIMEOUT_MS;
