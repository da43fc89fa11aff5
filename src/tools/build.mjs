// npm run build: compiles src/ to dist/src/, builds the order-tracker page into dist/tracker/,
// and copies what the compiled code and a production install read (the SDL, GraphiQL's
// sign-in script, the trusted-documents manifests, package-lock.json and the production
// launcher), with a package.json of the production's own and an .npmrc whose engine-strict
// refuses an install on an older Node.js before it writes anything: dist/ is the whole
// deployable. Plain JavaScript, so it runs before anything is compiled.
//
// `--if-available` (npm start's prestart): builds only when the sources changed since the
// last build, and only when the compiler is installed (a development install); without it
// (a production install) it uses the dist/ that is there, and fails with one line when
// there is none.
//
// Several `npm start` at once in one checkout: one builds (a lock), the others wait for it
// and find dist/ current; a build is written beside dist/ and swapped in whole, so no
// process ever loads half of an old build and half of a new one.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (path) => join(ROOT, path);
const ifAvailable = process.argv.includes('--if-available');

/** What a build is made from: any change here means dist/ is stale (the tracker page's sources included). */
const INPUTS = [
  'src',
  'schema',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'examples/order-tracker/src',
  'examples/order-tracker/index.html',
  'examples/order-tracker/vite.config.ts',
  'examples/order-tracker/package.json',
];
/** What the compiled code and a production install read besides the compiled files. */
const COPIED = [
  'schema/',
  'src/server/graphiql-sign-in.js',
  'src/simulator/code-labels.json',
  'src/client/__generated__/persisted-documents.json',
  'examples/order-tracker/src/gql/persisted-documents.json',
  'src/tools/start.mjs',
  'src/tools/heap-flags.mjs',
  'package-lock.json',
];

/**
 * dist/package.json: what a production install and the gateway read of package.json, and no
 * more (no workspaces, dev dependencies or development scripts). The overrides pin versions
 * the lockfile was made with; allowScripts, of the packages a production install has (one:
 * msgpackr-extract, denied), says which install scripts run; `npm start` there is the launcher. The gateway
 * reads the engines at start-up (src/server/main.ts).
 */
function productionManifest() {
  const { name, version, type, engines, dependencies, overrides, allowScripts = {} } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
  const { packages } = JSON.parse(readFileSync(at('package-lock.json'), 'utf8'));
  const installed = new Set(
    Object.entries(packages)
      .filter(([path, entry]) => path.includes('node_modules/') && !entry.dev)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  );
  const scripts = Object.fromEntries(Object.entries(allowScripts).filter(([name]) => installed.has(name)));
  return {
    name,
    version,
    private: true,
    type,
    engines,
    scripts: { start: 'node src/tools/start.mjs' },
    dependencies,
    overrides,
    ...(Object.keys(scripts).length > 0 && { allowScripts: scripts }),
  };
}

/** dist/.npmrc: npm refuses a production install on a Node.js older than the engines before it unpacks anything. */
const PRODUCTION_NPMRC = `# npm's settings for the production install in this folder (npm ci --omit=dev).
# A Node.js older than package.json's engines is refused before anything is written.
engine-strict=true
`;
const STAMP = 'dist/.build-inputs';
const LOCK = 'dist.lock';
/** A lock older than this was left by a build that died: taken over. */
const STALE_LOCK_MS = 120_000;

/** A digest of every input file's path and content. */
function inputsDigest() {
  const hash = createHash('sha256');
  const add = (path) => {
    const full = at(path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) add(join(path, name));
      return;
    }
    hash.update(relative(ROOT, full)).update('\0').update(readFileSync(full)).update('\0');
  };
  for (const path of INPUTS) add(path);
  return hash.digest('hex');
}

const isCurrent = (digest) => existsSync(at(STAMP)) && readFileSync(at(STAMP), 'utf8') === digest;

function compiler() {
  try {
    // The package's own command (its exports map does not list the file itself).
    return new URL('bin/tsc', new URL('.', pathToFileURL(createRequire(import.meta.url).resolve('typescript/package.json'))));
  } catch {
    return null;
  }
}

/** Takes the build lock, waiting while another build holds it; returns its release. */
function lock() {
  for (;;) {
    try {
      mkdirSync(at(LOCK));
      return () => rmSync(at(LOCK), { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (Date.now() - statSync(at(LOCK), { throwIfNoEntry: false })?.mtimeMs > STALE_LOCK_MS)
        rmSync(at(LOCK), { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/** The tracker page into `outDir` with Vite. */
async function buildTracker(outDir) {
  const config = at('examples/order-tracker/vite.config.ts');
  const { build: viteBuild } = await import('vite');
  // React's production build, whatever NODE_ENV the gateway is started with.
  process.env.NODE_ENV = 'production';
  await viteBuild({ configFile: config, logLevel: 'warn', build: { outDir: at(outDir), emptyOutDir: true } });
}

/** Compiles into a folder of its own, then puts it in dist/'s place in one rename. */
async function build(tsc, digest) {
  const next = `dist.next-${process.pid}`;
  const previous = `dist.previous-${process.pid}`;
  rmSync(at(next), { recursive: true, force: true });
  execFileSync(process.execPath, [fileURLToPath(tsc), '-p', 'tsconfig.build.json', '--outDir', next], { cwd: ROOT, stdio: 'inherit' });
  await buildTracker(join(next, 'tracker'));
  for (const path of COPIED) cpSync(at(path), at(join(next, path)), { recursive: true });
  writeFileSync(at(join(next, 'package.json')), `${JSON.stringify(productionManifest(), null, 2)}\n`);
  writeFileSync(at(join(next, '.npmrc')), PRODUCTION_NPMRC);
  writeFileSync(at(join(next, '.build-inputs')), digest);
  if (existsSync(at('dist'))) renameSync(at('dist'), at(previous));
  renameSync(at(next), at('dist'));
  rmSync(at(previous), { recursive: true, force: true });
}

const tsc = compiler();
if (!tsc) {
  if (!ifAvailable) {
    console.error('build: TypeScript is not installed: `npm ci` installs it with the dev dependencies');
    process.exit(1);
  }
  if (existsSync(at('dist/src/server/main.js'))) process.exit(0);
  console.error(
    'build: no dist/ to start and no TypeScript to build it: run `npm ci && npm run build` first (the production install leaves TypeScript out)',
  );
  process.exit(1);
}

const release = lock();
try {
  const digest = inputsDigest();
  // npm start builds only what changed; npm run build always builds.
  if (!(ifAvailable && isCurrent(digest))) await build(tsc, digest);
} finally {
  release();
}
