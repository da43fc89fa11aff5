// npm run build: compiles src/ to dist/src/ and copies what the compiled code reads at run
// time (the SDL, GraphiQL's sign-in script, the trusted-documents manifest, package.json).
// Plain JavaScript, so it runs before anything is compiled.
//
// `--if-available` (npm start's prestart): builds when the compiler is installed (a
// development install); without it (a production install, `npm ci --omit=dev`) it uses the
// dist/ that is there, and fails with one line when there is none.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url);
const at = (path) => new URL(path, ROOT);
const ifAvailable = process.argv.includes('--if-available');

let tsc;
try {
  // The package's own command (its exports map does not list the file itself).
  tsc = new URL('bin/tsc', new URL('.', pathToFileURL(createRequire(import.meta.url).resolve('typescript/package.json'))));
} catch {
  if (!ifAvailable) {
    console.error('build: TypeScript is not installed: `npm ci` installs it with the dev dependencies');
    process.exit(1);
  }
  if (existsSync(at('dist/src/server/main.js'))) process.exit(0);
  console.error('build: no dist/ to start and no TypeScript to build it: run `npm ci && npm run build` first (the production install leaves TypeScript out)');
  process.exit(1);
}

rmSync(at('dist/'), { recursive: true, force: true });
execFileSync(process.execPath, [fileURLToPath(tsc), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
for (const path of ['schema/', 'src/server/graphiql-sign-in.js', 'src/client/__generated__/persisted-documents.json', 'package.json']) {
  cpSync(at(path), at(`dist/${path}`), { recursive: true });
}
