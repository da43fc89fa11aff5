// npm run build / npm pack in packages/client: the SDK package made from the repository's
// sources (one source for each fact): src/client/ and src/cli/ compiled with what they
// import into dist/, and beside them the schema, the operation documents, their hashes and
// the licence, copied in. Plain JavaScript, so it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
/** The package's file ← where it comes from in the repository. */
const COPIED = {
  'schema.graphql': 'schema.graphql',
  documents: 'src/client/documents',
  'persisted-documents.json': 'src/client/__generated__/persisted-documents.json',
  LICENSE: 'LICENSE',
};

for (const path of ['dist', ...Object.keys(COPIED)]) rmSync(join(PACKAGE, path), { recursive: true, force: true });
// The package's own command (its exports map does not list the file itself).
const tsc = join(createRequire(import.meta.url).resolve('typescript/package.json'), '..', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(PACKAGE, 'tsconfig.json')], { cwd: PACKAGE, stdio: 'inherit' });
for (const [path, from] of Object.entries(COPIED)) cpSync(join(ROOT, from), join(PACKAGE, path), { recursive: true });
