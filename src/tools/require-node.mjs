// npm's preinstall: a production install (`npm ci --omit=dev`) on a Node.js older than
// package.json's engines refuses, instead of warning and running on it. A development
// install may run on any npm: the `node` dev dependency brings the Node.js the scripts use.
// (engine-strict would refuse that development install too.) Installed as a dependency of
// another project (the SDK and the CLI, from the packed tarball), it checks nothing: that
// project's Node.js is its own business.
//
// npm runs a project's own preinstall only after it has unpacked every dependency into
// node_modules/ (npm ci and npm install alike, and nothing rolls that back when the script
// fails): a refused install removes that node_modules/ itself, so it leaves nothing behind.
import { rmSync } from 'node:fs';
import { sep } from 'node:path';

const required = Number(/\d+/.exec(process.env.npm_package_engines_node ?? '')?.[0] ?? 0);
const running = Number(process.versions.node.split('.')[0]);
const omitted = (name) => (process.env[`npm_config_${name}`] ?? '').split(/[\s,]+/);
const production = omitted('omit').includes('dev') || (process.env.NODE_ENV === 'production' && !omitted('include').includes('dev'));
const asDependency = process.cwd().split(sep).includes('node_modules');
if (production && !asDependency && running < required) {
  console.error(
    `order-graph needs Node.js ${required} or newer; this is Node.js ${process.versions.node}. Install with that Node.js (the container image has it).`,
  );
  // npm runs this script in the project's folder: its node_modules/ is what this install unpacked.
  rmSync('node_modules', { recursive: true, force: true });
  process.exit(1);
}
