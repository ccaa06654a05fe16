import { defineConfig } from "vitest/config";

// `npm test`: everything but *.heavy.test.ts (npm pack + install, soak runs): `npm run test:heavy`,
// which .ci/run also runs.
const heavy = process.env.VITEST_HEAVY === "1";

export default defineConfig({
  test: {
    include: heavy ? ["test/**/*.heavy.test.ts"] : ["test/**/*.test.ts"],
    exclude: heavy ? [] : ["test/**/*.heavy.test.ts", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
