// The frontend recipe of docs/sdk.md as a new user follows it: its codegen.ts block taken from
// the page as it stands, in a project with the compiler settings of Vite's `react-ts`
// template, the SDK package installed from its tarball (offline), codegen run from the
// file the package ships and from the running endpoint, and the project type-checked with
// `tsc -b`. The recipe and this test cannot drift: the test has no configuration of its own.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graph/sdl.js';
import { packClient } from '../helpers/client-package.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { installOffline } from '../helpers/offline-install.js';
import { PROJECT_PATH, ROOT } from '../helpers/process.js';

const run = promisify(execFile);
/** Where the recipe is written for frontend developers. */
const RECIPE = 'docs/sdk.md';

/** The page's codegen.ts: the TypeScript block that starts with `// codegen.ts`. */
function recipeCodegenConfig(page: string): string {
  const block = /```ts\n(\/\/ codegen\.ts\n[\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error(`${RECIPE} has no \`\`\`ts block starting with // codegen.ts`);
  return block;
}

/** Vite's react-ts template's compiler settings (tsconfig.app.json), less its vite/client types. */
const VITE_APP_TSCONFIG = {
  compilerOptions: {
    tsBuildInfoFile: './node_modules/.tmp/tsconfig.app.tsbuildinfo',
    target: 'ES2022',
    useDefineForClassFields: true,
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    module: 'ESNext',
    types: [],
    skipLibCheck: true,
    moduleResolution: 'bundler',
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    moduleDetection: 'force',
    noEmit: true,
    jsx: 'react-jsx',
    strict: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    erasableSyntaxOnly: true,
    noFallthroughCasesInSwitch: true,
    noUncheckedSideEffectImports: true,
  },
  include: ['src'],
};

/** The app's own code: a generated document and its typed result, beside the SDK. */
const APP = `import { print } from 'graphql';
import { createOrderClient } from '@order-graph/client';
import { WholeOrderDocument, type OrderStatus, type WholeOrderQuery } from './gql/graphql';

export const query: string = print(WholeOrderDocument);
export const vin = (data: WholeOrderQuery): string | undefined => data.me?.orders?.[0]?.vehicle?.vin;
export const status = (data: WholeOrderQuery): OrderStatus | undefined => data.me?.orders?.[0]?.status;
export const amountDue = (data: WholeOrderQuery): string | undefined => data.me?.orders?.[0]?.estimate?.amountDue.amount;
export const client = createOrderClient({ endpoint: '/graphql' });
`;

let harness: Harness;
let work: string;
let app: string;
let config: string;
const env = () => ({ PATH: PROJECT_PATH, HOME: process.env.HOME ?? work });

beforeAll(async () => {
  harness = await startHarness({ sockets: true });
  work = mkdtempSync(join(tmpdir(), 'order-graph-frontend-'));
  const { tarball, manifest } = await packClient(work);
  app = join(work, 'app');
  mkdirSync(join(app, 'src'), { recursive: true });
  const project = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { overrides: Record<string, string> };
  // The SDK offline, from npm's cache: the suite never reaches the registry.
  await installOffline(app, tarball, { ...manifest, overrides: project.overrides });
  // The tools the recipe runs, at this project's locked versions: this checkout's own installs,
  // linked in (installing them again took seven CPU-seconds and tested nothing of the recipe).
  for (const tool of ['@graphql-codegen/cli', '@graphql-codegen/client-preset', 'typescript']) {
    mkdirSync(dirname(join(app, 'node_modules', tool)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', tool), join(app, 'node_modules', tool));
  }
  mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
  for (const command of ['graphql-codegen', 'tsc']) {
    symlinkSync(join(ROOT, 'node_modules', '.bin', command), join(app, 'node_modules', '.bin', command));
  }
  config = recipeCodegenConfig(readFileSync(join(ROOT, RECIPE), 'utf8'));
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ files: [], references: [{ path: './tsconfig.app.json' }] }, null, 2));
  writeFileSync(join(app, 'tsconfig.app.json'), JSON.stringify(VITE_APP_TSCONFIG, null, 2));
  writeFileSync(join(app, 'src', 'main.ts'), APP);
}, 240_000);
afterAll(async () => {
  await harness?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs the app's codegen with this codegen.ts; resolves with the generated src/gql/graphql.ts. */
async function codegen(codegenTs: string): Promise<string> {
  writeFileSync(join(app, 'codegen.ts'), codegenTs);
  rmSync(join(app, 'src', 'gql'), { recursive: true, force: true });
  await run(join(app, 'node_modules', '.bin', 'graphql-codegen'), [], { cwd: app, env: env(), timeout: 120_000 });
  return readFileSync(join(app, 'src', 'gql', 'graphql.ts'), 'utf8');
}

/** The app's TypeScript errors from `tsc -b` ('' when none). */
async function tscBuild(): Promise<string> {
  rmSync(join(app, 'node_modules', '.tmp'), { recursive: true, force: true });
  try {
    await run(join(app, 'node_modules', '.bin', 'tsc'), ['-b'], { cwd: app, env: env(), timeout: 120_000 });
    return '';
  } catch (error) {
    return String((error as { stdout: string }).stdout);
  }
}

describe("docs/sdk.md's frontend recipe, verbatim", () => {
  /** What the recipe's codegen.ts generates from the package's schema file (made once, by the first test that needs it). */
  let fromFile: string | undefined;

  it('schema.graphql is up to date with schema/ (run npm run schema:print)', () => {
    const printed = readFileSync(join(ROOT, 'schema.graphql'), 'utf8');
    expect(printed).toContain(printSchema(buildSchema(loadTypeDefs().join('\n'))));
  });

  it("codegen from the SDK package's schema file: typed results, string scalars, the gateway's hashes, and `tsc -b` passes", async () => {
    const graphql = (fromFile = await codegen(config));
    expect(graphql).toMatch(/export type WholeOrderQuery = \{ me: \{ id: string, email: string \| null/);
    // The scalars as strings (DateTime, Date, Decimal), none left as any.
    expect(graphql).toMatch(/paidAt: string \| null/);
    expect(graphql).toMatch(/earliestPickupDate: string \| null/);
    expect(graphql).toMatch(/amountDue: \{ amount: string, currencyCode: string \}/);
    expect(graphql).not.toMatch(/:\s*any\b/);
    // Enums as string unions.
    expect(graphql).toMatch(/export type OrderStatus =[\s\S]*\| 'READY_FOR_PICKUP'/);
    expect(graphql).toMatch(/^import type /m);
    // The SDK's documents come out under the hashes the gateway registers (TRUSTED_DOCUMENTS).
    const hashes = JSON.parse(readFileSync(join(app, 'src', 'gql', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
    const registered = JSON.parse(
      readFileSync(join(app, 'node_modules', '@order-graph', 'client', 'persisted-documents.json'), 'utf8'),
    ) as Record<string, string>;
    expect(hashes).toEqual(registered);
    expect(await tscBuild()).toBe('');
  });

  it('the project is as strict as Vite makes it: without useTypeImports, tsc -b fails with TS1484', async () => {
    const withoutTypeImports = config.replace(/^\s*useTypeImports: true,\n/m, '');
    expect(withoutTypeImports).not.toBe(config);
    await codegen(withoutTypeImports);
    expect(await tscBuild()).toMatch(/error TS1484/);
  });

  it('codegen from the running endpoint (introspection, as the block says) gives the same types', async () => {
    fromFile ??= await codegen(config);
    const fromEndpoint = await codegen(
      config.replace("schema: 'node_modules/@order-graph/client/schema.graphql'", `schema: '${harness.endpoint}'`),
    );
    expect(fromEndpoint).toBe(fromFile);
  });
});
