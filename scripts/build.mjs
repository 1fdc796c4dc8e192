// Bundles the CLI with esbuild: one small entry plus chunks loaded on demand, so `svc api …`
// parses only what it runs (start-up is most of a CLI call). Type checking is `tsc --noEmit`.
// Also writes the operation manifest, generated from the contract, beside the bundle.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const banner = {
  // Some dependencies are CommonJS and call require(): give the ESM bundle one.
  js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
};

/**
 * marked-terminal imports its code highlighter (highlight.js, ~190 languages registered on
 * load) up front; the chat gets it on the first code block instead (src/tui/chat/lazy-highlight.ts).
 */
const lazyHighlight = {
  name: 'lazy-cli-highlight',
  setup(build) {
    build.onResolve({ filter: /^cli-highlight$/ }, (args) =>
      /[\\/]marked-terminal[\\/]/.test(args.importer) ? { path: fileURLToPath(new URL('../src/tui/chat/lazy-highlight.ts', import.meta.url)) } : undefined,
    );
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  sourcemap: 'linked',
  minifySyntax: true,
  // Native addons stay in node_modules.
  // react-devtools-core: ink loads it only with DEV=true, for its devtools; not a dependency.
  // stripe: loaded from node_modules by the server only (its own bundle would be 1 MB to parse).
  external: ['better-sqlite3', 'react-devtools-core', 'stripe'],
  banner,
  // Production builds of React and the reconciler: the development ones are twice the code
  // to parse at every start of the chat.
  define: { 'process.env.NODE_ENV': '"production"' },
  // clipanion's ESM build imports typanion lazily (its CommonJS build requires it up front).
  alias: { clipanion: './node_modules/clipanion/lib/advanced/index.mjs' },
  logLevel: 'warning',
  plugins: [lazyHighlight],
};

for (const dir of ['dist/cli', 'dist/server', 'dist/build']) rmSync(dir, { recursive: true, force: true });
mkdirSync('dist/build', { recursive: true });

// Three separate bundles, loaded by src/cli/lazy.ts: they share no chunk, so the CLI's hot path
// never parses the server or the full zod contract.
await build({ ...common, entryPoints: { main: 'src/cli/main.ts' }, outdir: 'dist/cli', splitting: true });
await build({ ...common, entryPoints: { app: 'server/app.ts' }, outdir: 'dist/server' });
await build({ ...common, entryPoints: { manifest: 'src/contract/manifest.ts' }, outdir: 'dist/build' });

// The manifest: evaluate the contract once, here, instead of at every CLI start.
const { buildManifest } = await import(pathToFileURL('dist/build/manifest.js').href);
writeFileSync('dist/cli/api-manifest.json', JSON.stringify(buildManifest()));
