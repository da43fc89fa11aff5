// The layout's rule, checked on every run: imports point down the layers, never up and
// never in a circle (docs/ARCHITECTURE.md, Layout). Type-only imports count too.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Each source file (relative to src/) with the source files it imports. */
const graph = new Map(
  sourceFiles(SRC).map((file) => {
    const text = readFileSync(file, 'utf8');
    const imports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)]
      .map((match) => match[1] ?? match[2]!)
      .map((specifier) => relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))));
    return [relative(SRC, file), imports] as const;
  }),
);

/** The layer a file belongs to: its folder under src/, or the file itself at the top. */
const layerOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : file.replace(/\.ts$/, ''));

// What each layer may import besides itself. The server assembles the graph over the
// upstream; redis shares live polls and order histories (and the server's counters and
// cache) between replicas, checking what it reads back with the upstream's own checks; live polls the
// upstream for the graph's subscriptions; the graph maps the upstream; the upstream knows
// only the contract and the error codes; the simulator plays the upstream; the SDK and the
// CLI are clients.
const MAY_IMPORT: Record<string, string[]> = {
  server: ['redis', 'live', 'graph', 'upstream', 'errors', 'error-codes', 'simulator', 'client', 'observability'],
  redis: ['live', 'graph', 'upstream', 'error-codes'],
  live: ['graph', 'upstream', 'errors', 'error-codes'],
  observability: ['graph', 'upstream', 'errors', 'error-codes'],
  graph: ['upstream', 'errors'],
  upstream: ['errors'],
  errors: ['upstream', 'error-codes'],
  simulator: ['upstream'],
  client: ['error-codes', 'upstream', 'graph'],
  cli: ['client'],
  tools: ['graph'],
};

describe('the layers of src/', () => {
  it('finds the files and their imports', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get('server/gateway.ts')).toContain('graph/context.ts');
  });

  it('no file imports a layer above its own', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => layerOf(target) !== layerOf(file) && !MAY_IMPORT[layerOf(file)]?.includes(layerOf(target))).map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('the upstream layer imports nothing of the graph or the server, errors.ts only the codes and the contract, the codes nothing', () => {
    expect(graph.get('errors.ts')).toEqual(['error-codes.ts', 'upstream/contract.ts']);
    expect(graph.get('error-codes.ts')).toEqual([]);
    expect(graph.get('upstream/contract.ts')).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
