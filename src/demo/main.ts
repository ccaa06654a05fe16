/**
 * `npm run demo`: a scripted coding session through the real host (AgentRunner,
 * system events, compaction-safeguard, context manager) on the faux model, with
 * real tools on a temp workspace; prints the timeline and leaves the state dir
 * for the CLI. `--provider/--model` runs the same host against a real provider.
 */
import { DEMO_USAGE, DemoArgsError, parseDemoArgs, type DemoArgs } from "./args.js";
import { DemoModelError } from "./errors.js";

async function main(): Promise<number> {
  let args: DemoArgs;
  try {
    args = parseDemoArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof DemoArgsError) {
      process.stderr.write(`demo: ${e.message}\n${DEMO_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  if (args.help) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  try {
    if (args.provider) {
      // refuse early, before loading the SDK, when the provider's key is missing
      const { assertProviderKey } = await import("./provider-key.js");
      assertProviderKey(args.provider);
    }
    const { runDemo } = await import("./run.js");
    await runDemo(args, (line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (e) {
    if (e instanceof DemoModelError) {
      process.stderr.write(`demo: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`demo: failed: ${(e as Error)?.message ?? String(e)}\n`);
    return 1;
  }
}

main().then((code) => {
  process.exitCode = code;
});
