/**
 * Property tests without their own seed run with one fixed seed, so the suite (and CI) gives the
 * same answer on every run. `FC_SEED=<n>` runs them with another seed; `FC_SEED=random` lets
 * fast-check pick one per property (it prints the seed of a failure, which FC_SEED replays).
 */
import fc from "fast-check";

const FIXED_SEED = 20261125;
const env = process.env.FC_SEED;
if (env !== "random") fc.configureGlobal({ seed: env && Number.isInteger(Number(env)) ? Number(env) : FIXED_SEED });
