// Installs a packed tarball of this project into another project the way a user would
// (`npm ci` of a project that depends on it), but offline: the other project gets a
// lockfile made from this project's own, so npm takes every package from its cache (where
// this checkout's `npm ci` put them) and never asks the registry. The suite makes no
// network call.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_PATH, ROOT } from './process.js';

/** What a packed package's manifest says about what it needs. */
export interface PackedManifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
  bin?: Record<string, string>;
}

export interface InstallOptions {
  /** The PATH npm runs with: the project's Node by default; another to install under another Node. */
  path?: string;
}

interface LockEntry {
  version?: string;
  integrity?: string;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  [key: string]: unknown;
}

/** Where npm finds `name` for the package at `from`: its own node_modules, then each parent's. */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
  }
}

/** The entries of this project's lockfile that `dependencies` need, transitively, with their places. */
function closure(dependencies: Record<string, string>): Record<string, LockEntry> {
  const { packages } = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const needed: Record<string, LockEntry> = {};
  const visit = (from: string, names: string[]) => {
    for (const name of names) {
      const path = locate(packages, from, name);
      if (!path || needed[path]) continue;
      const { dev: _dev, devOptional: _devOptional, ...entry } = packages[path]!;
      needed[path] = entry;
      const required = Object.keys({ ...entry.dependencies, ...entry.optionalDependencies });
      const peers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !entry.peerDependenciesMeta?.[peer]?.optional);
      visit(path, [...required, ...peers]);
    }
  };
  visit('', Object.keys(dependencies));
  return needed;
}

/**
 * Writes `consumer`'s package.json (depending on the tarball) and a lockfile, then runs
 * `npm ci --offline` there; resolves with npm's stderr (its warnings). The tarball's own
 * dependencies and peers must be this project's (or a subset): their versions come from this
 * project's lockfile.
 */
export async function installOffline(
  consumer: string,
  tarball: string,
  packageJson: PackedManifest,
  { path = PROJECT_PATH }: InstallOptions = {},
): Promise<string> {
  const spec = `file:${tarball}`;
  // The tarball's own overrides (pinned versions of its dependencies' dependencies) hold for the consumer too.
  const manifest = {
    name: 'consumer',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: { [packageJson.name]: spec },
    overrides: packageJson.overrides ?? {},
  };
  writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest, null, 2));
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const lock = {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies: manifest.dependencies },
      // npm ci links a package's commands from what the lockfile says it has.
      [`node_modules/${packageJson.name}`]: {
        version: basename(tarball).replace(/^.*-(\d+\.\d+\.\d+)\.tgz$/, '$1'),
        resolved: spec,
        integrity,
        dependencies: packageJson.dependencies,
        peerDependencies: packageJson.peerDependencies,
        bin: packageJson.bin,
      },
      ...closure({ ...packageJson.dependencies, ...packageJson.peerDependencies }),
    },
  };
  writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(lock, null, 2));
  const { stderr } = await promisify(execFile)('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: consumer,
    env: { PATH: path, HOME: process.env.HOME ?? consumer },
    timeout: 120_000,
  });
  return stderr;
}
