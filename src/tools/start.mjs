// The production start (npm start, the image's CMD): node with V8 heap settings sized for the
// machine or container it runs in, then the compiled gateway, in this same process.
//
// Some of those settings (--heap-growing-percent) are refused in NODE_OPTIONS: they must be
// on node's command line, which only a new node can be given. `process.execve` replaces this
// process with that node: one process, the same PID (PID 1 in a container), signals straight
// to the gateway, nothing to forward. Plain JavaScript, copied into dist/ by the build.
//
// NODE_HEAP_FLAGS, when set, replaces every computed flag (empty: node's own defaults).
import { totalmem } from 'node:os';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { heapFlags } from './heap-flags.mjs';

const main = fileURLToPath(new URL('../server/main.js', import.meta.url));

/**
 * Node's options without its .env ones (npm start's --env-file-if-exists=.env): they did their
 * work in this process, whose environment the new node gets; given again, node would read the
 * file a second time, or say a second time that there is none.
 */
function withoutEnvFiles(options) {
  return options.filter(
    (option, at) => !/^--env-file(-if-exists)?(=|$)/.test(option) && !/^--env-file(-if-exists)?$/.test(options[at - 1] ?? ''),
  );
}

// On a Node.js without execve (older than the 24 package.json asks for), the entry itself
// runs: its version check says in one line which Node.js it needs.
if (typeof process.execve !== 'function') await import(main);
else {
  // Relative to the working directory when under it: `ps` shows what a person would type.
  const shown = relative(process.cwd(), main);
  const entry = shown.startsWith('..') || isAbsolute(shown) ? main : shown;
  const flags = heapFlags(process.env, process.constrainedMemory(), totalmem());
  // This node's own options (--inspect, --cpu-prof…) come after the heap flags and win.
  process.execve(
    process.execPath,
    [process.argv0, ...flags, ...withoutEnvFiles(process.execArgv), entry, ...process.argv.slice(2)],
    process.env,
  );
}
