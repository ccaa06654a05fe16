// The layering of src/, as rules dependency-cruiser checks in CI (`npm run lint:layers`).
// Read top to bottom, it is the architecture, from the host shells down to the floor:
//
//   user surfaces   cli/ demo/ replay/ faux/ index.ts store.ts
//   host shells     agents/pi-extensions/ openclaw-plugin/ openclaw.ts agents/pi-embedded-runner/
//                   auto-reply/ openclaw-core/ (the restore seams OpenClaw core calls)
//   engine          agents/engine/
//   core, features  agents/*.ts and the feature folders (the capture and its state: agents/state/),
//                   ordered bottom first by FEATURE_TIERS: a folder imports only folders below it

//   bottom layers   agents/messages/ -> agents/text/
//   floor           infra/, node builtins, npm packages
//
// Every rule is an error: any violation makes depcruise exit non-zero.
// Paths are regular expressions over paths relative to the repo root.

/** The host shells: the only code that knows which host (pi, OpenClaw) it runs in. */
const SHELLS = [
  "^src/agents/pi-extensions/",
  "^src/openclaw-plugin/",
  "^src/openclaw[.]ts$",
  "^src/agents/pi-embedded-runner/",
  "^src/auto-reply/",
  "^src/openclaw-core/",
];
/** The user surfaces: the CLI, the demo, the replay harness, the faux model, the package entry points. */
const SURFACES = [
  "^src/cli/",
  "^src/demo/",
  "^src/replay/",
  "^src/faux/",
  "^src/index[.]ts$",
  "^src/store[.]ts$",
];
const ENGINE = "^src/agents/engine/";
const FEATURES = "^src/agents/(config|gauge|state|checkpoint|archive|artifacts|drift|inject|breakdown|trim|prompt-cost|cache)/";
/**
 * The feature folders, bottom first: each may import only the folders before it, so no two import
 * each other (a two-way pair can only be read and moved together).
 */
const FEATURE_TIERS = ["config", "gauge", "artifacts", "checkpoint", "state", "inject", "drift", "archive", "trim", "breakdown", "cache", "prompt-cost"];
const CORE_FILES = "^src/agents/[^/]+[.]ts$";
/** The hosts' own packages (pi's SDK and model layer, OpenClaw): what only the shells may import. */
const HOST_PACKAGES = "(^|/)node_modules/(@mariozechner/(pi-coding-agent|pi-ai|pi-tui)|openclaw)/";
/** Feature files that still import a host package (issue 38: to be moved out), and only these. */
const FEATURE_HOST_IMPORTS_LEFT = [
  "^src/agents/trim/relevance-index[.]ts$",
  "^src/agents/messages/(read|context-overflow)[.]ts$",
  "^src/agents/state/note-tool[.]ts$",
  "^src/agents/artifacts/fetch-tool[.]ts$",
  "^src/agents/archive/(segments|search-tool)[.]ts$",
  "^src/agents/gauge/context-gauge[.]ts$",
];
/** Where an npm package resolves to (also through a symlinked node_modules). */
const NPM = "(^|/)node_modules/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ---- the graph ------------------------------------------------------------------------
    {
      name: "no-circular",
      severity: "error",
      comment:
        "An import cycle has no bottom layer: its modules can only be understood, tested and moved together " +
        "(type-only and dynamic imports count).",
      from: { path: "^src/" },
      to: { circular: true },
    },

    // ---- top down: nothing imports upwards ---------------------------------------------------
    {
      name: "engine-imports-no-shell",
      severity: "error",
      comment:
        "The engine is host-neutral: pi and OpenClaw shells adapt to it, so it must not know any shell or user surface.",
      from: { path: ENGINE },
      to: { path: [...SHELLS, ...SURFACES] },
    },
    {
      name: "core-imports-no-engine-or-shell",
      severity: "error",
      comment:
        "The core files (src/agents/*.ts) are what the engine drives; importing the engine or a shell back would invert that.",
      from: { path: CORE_FILES, pathNot: SHELLS },
      to: { path: [ENGINE, ...SHELLS, ...SURFACES] },
    },
    {
      name: "features-import-no-engine-or-shell",
      severity: "error",
      comment:
        "A feature (state, checkpoint, archive, artifacts, drift, inject) is a library the engine composes; " +
        "it must not reach back into the engine or a host.",
      from: { path: FEATURES },
      to: { path: [ENGINE, ...SHELLS, ...SURFACES] },
    },
    // ---- host packages stay in the shells --------------------------------------------------
    {
      name: "engine-imports-no-host-package",
      severity: "error",
      comment:
        "The engine speaks its own types (engine/compaction.ts, ContextReading): the pi SDK, pi-ai and OpenClaw " +
        "stay in the shells. Only the message shape (AgentMessage, from pi-agent-core) is shared, as a type.",
      from: { path: ENGINE },
      to: { path: HOST_PACKAGES },
    },
    {
      name: "engine-and-features-type-only-message-shape",
      severity: "error",
      comment: "AgentMessage is the one host type the engine and the features share, and only as a type: no pi-agent-core code runs there.",
      from: { path: [ENGINE, FEATURES, "^src/agents/(messages|text)/"] },
      to: { path: "(^|/)node_modules/@mariozechner/pi-agent-core/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "features-import-no-host-package",
      severity: "error",
      comment:
        "The feature folders are host-neutral libraries. The files listed still take pi's token estimate, tool " +
        "schema builder or message types (the tool definitions move to the shells); no other feature file may.",
      from: { path: [FEATURES, "^src/agents/(messages|text)/"], pathNot: FEATURE_HOST_IMPORTS_LEFT },
      to: { path: HOST_PACKAGES },
    },
    ...FEATURE_TIERS.slice(0, -1).map((folder, i) => ({
      name: `feature-tier-${folder}`,
      severity: "error",
      comment: `${folder}/ sits below ${FEATURE_TIERS.slice(i + 1).join(", ")} (FEATURE_TIERS): it must not import them.`,
      from: { path: `^src/agents/${folder}/` },
      to: { path: `^src/agents/(${FEATURE_TIERS.slice(i + 1).join("|")})/` },
    })),
    {
      name: "bottom-layers",
      severity: "error",
      comment:
        "messages/ and text/ are pure helpers every layer may use: they import only each other, infra/, " +
        "node builtins and npm packages (not the schema nor any context-*.ts).",
      from: { path: "^src/agents/(messages|text)/" },
      to: { pathNot: ["^src/agents/(messages|text)/", "^src/infra/", NPM], dependencyTypesNot: ["core"] },
    },
    {
      name: "text-below-messages",
      severity: "error",
      comment: "text/ is the lowest helper layer: it works on strings and knows nothing of messages.",
      from: { path: "^src/agents/text/" },
      to: { path: "^src/agents/messages/" },
    },
    {
      name: "infra-is-the-floor",
      severity: "error",
      comment: "infra/ (files, logs, session paths) is the floor: only infra/, node builtins and npm packages below it.",
      from: { path: "^src/infra/" },
      to: { pathNot: ["^src/infra/", NPM], dependencyTypesNot: ["core"] },
    },
    {
      name: "library-imports-no-surface",
      severity: "error",
      comment:
        "The CLI, demo, replay harness and faux model are consumers of the library; " +
        "no library module may depend on them (only src/index.ts re-exports store.ts).",
      from: { path: "^src/", pathNot: SURFACES },
      to: { path: SURFACES },
    },

    // ---- what src/ may import at all ----------------------------------------------------------
    {
      name: "src-imports-only-src",
      severity: "error",
      comment:
        "src/ is what ships (package.json files); an import of test/, bench/, compat/, dist/ or a *.test.ts " +
        "would pull code that is not published.",
      from: { path: "^src/" },
      to: { path: ["^(test|bench|compat|dist|docs)/", "[.](test|spec)[.][cm]?[jt]s$"] },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment:
        "An import dependency-cruiser cannot resolve is either broken or hides an edge the rules above cannot see.",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
    {
      name: "no-non-package-json",
      severity: "error",
      comment:
        "A package src/ loads at run time must be declared in package.json, or installs that do not hoist it break " +
        "(type-only imports are exempt for now: src/ takes AgentMessage from @mariozechner/pi-agent-core, " +
        "which only pi-coding-agent declares).",
      from: { path: "^src/" },
      // an optional peer (the pi SDK: the host's own copy) is also typed npm-no-pkg by the cruiser
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"], dependencyTypesNot: ["type-only", "npm-peer"] },
    },
    {
      name: "not-to-dev-dep",
      severity: "error",
      comment:
        "Consumers do not install devDependencies: src/ may use one only if it is also a peerDependency " +
        "(the pi packages the host provides).",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm-peer"] },
    },
  ],

  options: {
    // npm packages are leaves: their own imports are not ours to police.
    doNotFollow: { path: NPM },
    // keep type-only imports (`import type`, `export type`): a type cycle or an upward type import
    // couples layers just as a value import does.
    tsPreCompilationDeps: true,
    // resolve as tsc does (NodeNext): `./x.js` in the source is `./x.ts` on disk.
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
