// The OpenClaw plugin as one ES module (package.json "openclaw.extensions"): OpenClaw installs a
// plugin's dependencies without its peers (npm --omit=peer) and has no pi 0.73 SDK of its own, so
// the few pi functions the engine calls (estimateTokens, calculateContextTokens, isContextOverflow,
// typebox's Type) are bundled in; only `openclaw/*` stays external (OpenClaw aliases it to itself).
// One compiled file also spares OpenClaw's loader transpiling ~200 TypeScript modules on start.
// The archive worker is bundled beside it: archive-client.ts starts ./archive-worker.js next to itself.
import { build } from "esbuild";

// modules of the pi SDK (and what they import) are marked side-effect free so that only the
// functions we call survive; our own runtime dependencies keep their side effects
const OWN_DEPS = /node_modules\/(yaml|re2js|@secretlint\/[^/]+|typebox)\//;

const sdkTreeShaking = {
  name: "sdk-tree-shaking",
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "resolved" || args.kind === "entry-point") return undefined;
      const fromSdk = /^@mariozechner\//.test(args.path) || (args.importer.includes("node_modules/") && !OWN_DEPS.test(args.importer));
      if (!fromSdk) return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: "resolved" });
      // an optional import of a provider SDK that is not installed: never reached by our code
      if (r.errors.length) return { path: args.path, external: true };
      return OWN_DEPS.test(r.path) ? r : { ...r, sideEffects: false };
    });
  },
};

// pi-ai's model catalogue (~295 KiB) stays reachable through a module initializer although none
// of its lookups (getModel, calculateCost, ...) survives tree shaking: the plugin gets the model
// from OpenClaw, never from pi's catalogue, so the bundle carries an empty one
const noModelCatalogue = {
  name: "no-model-catalogue",
  setup(b) {
    b.onLoad({ filter: /@mariozechner[\\/]pi-ai[\\/]dist[\\/]models\.generated\.js$/ }, () => ({ contents: "export const MODELS = {};", loader: "js" }));
  },
};

const result = await build({
  entryPoints: { plugin: "src/openclaw-plugin/index.ts", "archive-worker": "src/agents/archive/worker/archive-worker.ts" },
  outdir: "dist/openclaw",
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  external: ["openclaw", "openclaw/*"],
  plugins: [sdkTreeShaking, noModelCatalogue],
  // bundled CommonJS modules require() Node built-ins: give the ES module a real require
  banner: { js: 'import { createRequire as __cmCreateRequire } from "node:module"; const require = __cmCreateRequire(import.meta.url);' },
  minify: true,
  keepNames: true,
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
});
for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) console.log(`${file}: ${(bytes / 1024).toFixed(0)} KiB`);
