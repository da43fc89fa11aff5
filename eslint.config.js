// The lint rules (ESLint flat config, typescript-eslint). The tools live in .lint/ (its
// package.json says why); `npm run lint` installs them, runs ESLint and `prettier --check`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const tools = createRequire(new URL('./.lint/package.json', import.meta.url));
const load = async (name) => (await import(pathToFileURL(tools.resolve(name)).href)).default;
const js = await load('@eslint/js');
const tseslint = await load('typescript-eslint');
const importX = await load('eslint-plugin-import-x');
const { createTypeScriptImportResolver } = await import(pathToFileURL(tools.resolve('eslint-import-resolver-typescript')).href);
const prettier = await load('eslint-config-prettier');
const globals = await load('globals');
const ts = await load('typescript');

/**
 * What each layer of src/ may import besides itself (docs/ARCHITECTURE.md, Layout): the server
 * assembles the graph over the upstream; redis shares live polls, histories, counters and the
 * cache between replicas; notify polls on behalf of customers who turned notifications on and
 * delivers their messages; live polls the upstream for the subscriptions; the graph maps the
 * upstream; the upstream knows only the contract and the error codes; the simulator plays the
 * upstream; the SDK and the CLI are clients.
 */
const MAY_IMPORT = {
  server: ['redis', 'notify', 'live', 'graph', 'upstream', 'errors', 'error-codes', 'simulator', 'client', 'observability'],
  redis: ['notify', 'live', 'graph', 'upstream', 'error-codes'],
  notify: ['live', 'graph', 'upstream', 'errors', 'error-codes'],
  live: ['graph', 'upstream', 'errors', 'error-codes'],
  observability: ['graph', 'upstream', 'errors', 'error-codes'],
  graph: ['upstream', 'errors'],
  upstream: ['errors'],
  errors: ['upstream', 'error-codes'],
  'error-codes': [],
  simulator: ['upstream'],
  client: ['error-codes', 'upstream', 'graph'],
  cli: ['client'],
  tools: ['graph'],
};
/** A layer's files: its folder, or for errors and error-codes the file at the top of src/. */
const filesOf = (layer) => (['errors', 'error-codes'].includes(layer) ? `./src/${layer}.ts` : `./src/${layer}`);
const LAYER_ZONES = Object.entries(MAY_IMPORT).map(([layer, allowed]) => ({
  target: filesOf(layer),
  from: Object.keys(MAY_IMPORT)
    .filter((other) => other !== layer && !allowed.includes(other))
    .map(filesOf),
  message: `the ${layer} layer may import only ${allowed.join(', ') || 'nothing of src/'} (docs/ARCHITECTURE.md, Layout)`,
}));

/**
 * Import cycles, type-only imports included: import-x/no-cycle skips every `import type` by
 * design (no option counts them), yet a type-only cycle ties two modules as tightly as any
 * (the layers' order means nothing inside it). Each file's imports are read with TypeScript's
 * import scanner, which skips comments and strings; the relative ones are followed.
 */
const scanned = new Map();
/** The files `path` imports by relative specifier (a `.js` specifier names its `.ts` source). */
function localImports(path) {
  const mtime = statSync(path).mtimeMs;
  const known = scanned.get(path);
  if (known?.mtime === mtime) return known.imports;
  const imports = ts
    .preProcessFile(readFileSync(path, 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => sourceOf(path, specifier))
    .filter((found) => found !== undefined);
  scanned.set(path, { mtime, imports });
  return imports;
}
function sourceOf(importer, specifier) {
  const named = resolve(dirname(importer), specifier);
  const stem = named.replace(/\.(js|mjs)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, named, `${named}/index.ts`].find((path) => existsSync(path) && statSync(path).isFile());
}
/** The route from `start` back to `file` along imports, or undefined when there is none. */
function routeBack(start, file) {
  const cameFrom = new Map([[start, undefined]]);
  for (const path of cameFrom.keys()) {
    for (const next of localImports(path)) {
      if (next === file) {
        const route = [file];
        for (let at = path; at !== undefined; at = cameFrom.get(at)) route.unshift(at);
        return route;
      }
      if (!cameFrom.has(next)) cameFrom.set(next, path);
    }
  }
  return undefined;
}
const noImportCycle = {
  meta: { type: 'problem', schema: [], messages: { cycle: 'Import cycle: {{route}}' } },
  create(context) {
    const file = context.physicalFilename;
    const check = (node) => {
      if (typeof node.source?.value !== 'string' || !node.source.value.startsWith('.')) return;
      const target = sourceOf(file, node.source.value);
      const route = target && routeBack(target, file);
      if (route)
        context.report({
          node,
          messageId: 'cycle',
          data: { route: [file, ...route].map((path) => relative(process.cwd(), path)).join(' → ') },
        });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

// A table that lives as long as the process and is keyed by a request is state a reader cannot
// see from the request itself, shared by every gateway in the process. Tables made inside a
// function (per gateway, per call) and per-document caches are fine.
const PER_REQUEST_KEY =
  '/^(Request\\w*|IncomingMessage|ServerResponse|Http2ServerRequest|AbortSignal|AbortController|\\w*Context|\\w*Scope|WeakKey)$/';
const MODULE_LEVEL_NEW = [
  'Program > VariableDeclaration > VariableDeclarator > NewExpression',
  'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > NewExpression',
  'Program > VariableDeclaration > VariableDeclarator > ObjectExpression > Property > NewExpression',
  'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > ObjectExpression > Property > NewExpression',
  'PropertyDefinition[static=true] > NewExpression',
].map((position) => `${position}[callee.name=/^(Weak)?Map$/]`);
const REQUEST_KEYED_TABLES = MODULE_LEVEL_NEW.flatMap((table) => [
  `${table} > TSTypeParameterInstantiation > :first-child Identifier[name=${PER_REQUEST_KEY}]`,
  `${table} > TSTypeParameterInstantiation > :matches(TSObjectKeyword, TSAnyKeyword, TSUnknownKeyword):first-child`,
  `${table}[arguments.length=0]:not([typeArguments])`,
]).map((selector) => ({
  selector,
  message: 'A module-level Map or WeakMap keyed by requests (or by anything): make it per gateway or per call.',
}));

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/dist.*/',
      '**/__generated__/',
      'examples/order-tracker/src/gql/',
      'test-results/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Control characters are what the terminal, log and upstream checks look for on purpose.
      'no-control-regex': 'off',
      // `_name` says "deliberately unused" (a destructured rest, a callback's place).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,js,mjs}'],
    plugins: { 'import-x': importX, 'order-graph': { rules: { 'no-import-cycle': noImportCycle } } },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
      'order-graph/no-import-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: LAYER_ZONES }],
      'no-restricted-syntax': ['error', ...REQUEST_KEYED_TABLES],
    },
  },
  // The observability libraries are the observability layer's alone: the layers below it declare
  // what they need watched (CallObserver, FieldTracer) and know no trace or metric; the server
  // wires the observability in through its types.
  {
    files: ['src/**/*.{ts,js,mjs}'],
    ignores: ['src/observability/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@opentelemetry/*', 'prom-client'], message: 'Only src/observability/ imports the tracing and metrics libraries.' },
          ],
        },
      ],
    },
  },
  // Tests read answers of any shape (JSON from the wire); type tests state expressions to check their types.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['test/types/**'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  // Seed data: long literal tables, not logic.
  { files: ['src/simulator/data.ts'], rules: { 'max-lines-per-function': 'off' } },
  { files: ['src/server/graphiql-sign-in.js', 'examples/order-tracker/src/**'], languageOptions: { globals: { ...globals.browser } } },
  prettier,
);
