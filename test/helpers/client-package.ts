// The SDK package (packages/client) packed as its users get it: `npm pack` in a copy of the
// checkout (its build never touches the checkout's own files), the tarball and its manifest.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PackedManifest } from './offline-install.js';
import { checkoutCopy, PROJECT_PATH } from './process.js';

export interface PackedClient {
  tarball: string;
  /** The paths inside the tarball. */
  files: string[];
  manifest: PackedManifest & { engines?: Record<string, string> };
}

/** Packs @order-graph/client into `work` (a checkout copy is made in work/checkout). */
export async function packClient(work: string): Promise<PackedClient> {
  const packageDir = join(checkoutCopy(join(work, 'checkout')), 'packages', 'client');
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: packageDir,
    env: { PATH: PROJECT_PATH, HOME: process.env.HOME ?? work },
    timeout: 120_000,
  });
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  return {
    tarball: join(work, packed.filename),
    files: packed.files.map((file) => file.path),
    manifest: JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackedClient['manifest'],
  };
}
