// The docs against the tree: every path README.md, SECURITY.md and the pages of docs/ name
// exists, and their layouts list what is there (ARCHITECTURE.md every file of src/, the
// README every folder), so a move or a new file cannot leave them behind.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES } from '../helpers/docs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = DOC_PAGES;

// What is not the project's: dot folders (tooling) and what .gitignore names by file or folder
// name (node_modules/, dist/, test-results/, *.log…); patterns with a path in them are left out.
const ignoredNames = read('.gitignore')
  .split('\n')
  .map((line) => line.trim().replace(/\/$/, ''))
  .filter((line) => line && !line.startsWith('#') && !line.includes('/'))
  .map((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`));
const ignored = (name: string) => name.startsWith('.') || ignoredNames.some((pattern) => pattern.test(name));

/** Every file and folder (folders end in "/") under `dir`, relative to the root. */
function tree(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => !ignored(entry.name))
    .flatMap((entry) => {
      const path = `${dir}${entry.name}`;
      return entry.isDirectory() ? [`${path}/`, ...tree(`${path}/`)] : [path];
    });
}

const paths = tree();
const baseNames = new Set(paths.map((path) => posix.basename(path)));
const topFolders = paths.filter((path) => /^[^/]+\/$/.test(path));
const srcFolders = paths.filter((path) => /^src\/[^/]+\/$/.test(path));

// A path is written from the root (`src/live/`) or, inside src/, from there (`graph/context.ts`);
// one that ends in "/" is a folder.
const exists = (path: string) =>
  [path, `src/${path}`].some(
    (candidate) => existsSync(join(ROOT, candidate)) && (!candidate.endsWith('/') || statSync(join(ROOT, candidate)).isDirectory()),
  );

const FIRST_SEGMENTS = [...new Set([...topFolders, ...srcFolders.map((folder) => folder.slice('src/'.length))])].map((folder) =>
  folder.slice(0, -1),
);
const PATH = new RegExp(String.raw`(?<![\w./@:-])((?:${FIRST_SEGMENTS.join('|')})/[\w./@-]*)`, 'g');
// A file name: lower case, or capitals (README.md); "Node.js" is neither.
const FILE_NAME = /(?<![\w./@-])((?:[a-z0-9_][\w-]*|[A-Z][A-Z0-9_-]*)(?:\.[\w-]+)*\.(?:ts|mjs|js|json|md|ya?ml|graphql|conf))(?![\w/-])/g;

/**
 * A doc's prose and its plain code blocks (diagrams, layouts, sample output). Blocks with a
 * language are code and commands, where a path may be another project's (`src/gql/`) or
 * dist/'s.
 */
function readable(text: string): { prose: string; plainBlocks: string[] } {
  const plainBlocks: string[] = [];
  const prose = text.replace(/^```(\w*)\n([\s\S]*?)^```$/gm, (_block, language: string, body: string) => {
    if (!language) plainBlocks.push(body);
    return '';
  });
  return { prose, plainBlocks };
}

/**
 * The paths in a layout block: one entry a line, its name first, a folder's entries indented
 * under it; a line that starts at column 12 or further continues the description above.
 */
function layoutEntries(block: string): string[] {
  const folders: { indent: number; path: string }[] = [];
  const entries: string[] = [];
  for (const line of block.split('\n')) {
    const indent = line.search(/\S/);
    if (indent < 0 || indent >= 12) continue;
    while (folders.length > 0 && folders.at(-1)!.indent >= indent) folders.pop();
    const path = `${folders.at(-1)?.path ?? ''}${line.trim().split(/\s/)[0]}`;
    entries.push(path);
    if (path.endsWith('/')) folders.push({ indent, path });
  }
  return entries;
}

/** The layout block of a doc: its first plain code block after the heading. */
function layoutOf(doc: string, heading: string): string[] {
  const text = read(doc);
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${doc} has "${heading}"`).toBeGreaterThan(0);
  const block = /^```\n([\s\S]*?)^```$/m.exec(text.slice(start));
  return layoutEntries(block![1]!);
}

const LAYOUTS = { 'README.md': '## How it is built', 'docs/ARCHITECTURE.md': '## Layout' } as const;

/** Every path a doc names: in its prose and plain blocks, as a file name in code, as a link, in its layout. */
function namedPaths(doc: string): string[] {
  const text = read(doc);
  const { prose, plainBlocks } = readable(text);
  const scanned = [prose, ...plainBlocks].join('\n');
  const inCode = [...(prose.match(/`[^`\n]+`/g) ?? []), ...plainBlocks].join('\n');
  const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target && !/^[a-z]+:/.test(target))
    .map((target) => posix.normalize(posix.join(posix.dirname(doc), target)));
  const layout = doc in LAYOUTS ? layoutOf(doc, LAYOUTS[doc as keyof typeof LAYOUTS]) : [];
  return [
    ...[...scanned.matchAll(PATH)].map((match) => match[1]!.replace(/\.+$/, '')),
    ...[...inCode.matchAll(FILE_NAME)].map((match) => match[1]!),
    ...links,
    ...layout,
  ];
}

const resolves = (path: string) => (path.includes('/') ? exists(path) : baseNames.has(path));

describe('the docs read what they are meant to', () => {
  it('reads a layout as a tree, descriptions and their continuation lines aside', () => {
    const block = [
      'src/',
      '  server/           where a request enters',
      '    main.ts         the entry,',
      '                    wrapped',
      '  errors.ts         codes',
      'test/',
    ].join('\n');
    expect(layoutEntries(block)).toEqual(['src/', 'src/server/', 'src/server/main.ts', 'src/errors.ts', 'test/']);
  });

  it('reads every page of docs/, and finds the paths each doc names', () => {
    expect(DOCS).toEqual(
      expect.arrayContaining(['docs/configuration.md', 'docs/limits.md', 'docs/production.md', 'docs/querying.md', 'docs/sdk.md']),
    );
    expect(namedPaths('README.md')).toEqual(
      expect.arrayContaining([
        'src/client/documents/whole-order.graphql',
        'bench/README.md',
        'upstream/',
        'docs/images/graphiql-whole-order.png',
      ]),
    );
    expect(namedPaths('docs/ARCHITECTURE.md')).toEqual(
      expect.arrayContaining(['src/server/http-server.ts', 'upstream/scope.ts', 'polling.ts', 'src/graph/resolvers/order.ts']),
    );
    expect(namedPaths('docs/limits.md')).toEqual(expect.arrayContaining(['src/server/limits.ts', 'request-limits.test.ts', 'SECURITY.md']));
    // A link from docs/ is read from there: ../SECURITY.md is the root's.
    expect(namedPaths('docs/sdk.md')).toEqual(expect.arrayContaining(['SECURITY.md', 'docs/cli.md']));
    expect(resolves('upstream/http.ts') && resolves('polling.ts') && resolves('src/live/')).toBe(true);
    expect(resolves('src/server.ts/') || resolves('src/nothing.ts') || resolves('nothing.ts')).toBe(false);
  });
});

describe('the docs name what is there', () => {
  it.each(DOCS)('every path %s names exists', (doc) => {
    expect(namedPaths(doc).filter((path) => !resolves(path))).toEqual([]);
  });

  it("ARCHITECTURE.md's layout lists every top-level folder, and every file and folder of src/", () => {
    // Generated files and the operation documents are listed by their folder.
    const expected = [...topFolders, ...paths.filter((path) => path.startsWith('src/') && !/\/(__generated__|documents)\/./.test(path))];
    const listed = new Set(layoutOf('docs/ARCHITECTURE.md', LAYOUTS['docs/ARCHITECTURE.md']));
    expect(expected.filter((path) => !listed.has(path))).toEqual([]);
  });

  it("the README's layout lists every top-level folder and every folder of src/", () => {
    const listed = new Set(layoutOf('README.md', LAYOUTS['README.md']));
    expect([...topFolders, ...srcFolders].filter((path) => path !== 'src/' && !listed.has(path))).toEqual([]);
  });
});

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown page's headings (outside code blocks). */
const anchorsOf = (doc: string) => new Set([...readable(read(doc)).prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

describe('links to a section of a page', () => {
  it('make anchors as GitHub does', () => {
    expect(anchorOf('What one caller may hold, on every transport')).toBe('what-one-caller-may-hold-on-every-transport');
    expect(anchorOf('The order streamed: @defer')).toBe('the-order-streamed-defer');
    expect(anchorOf('Watching: --watch')).toBe('watching---watch');
    expect(anchorOf('The command line (`order-graph`)')).toBe('the-command-line-order-graph');
  });

  it.each(DOCS)('every #section %s links to is a heading of its page', (doc) => {
    const links = [...readable(read(doc)).prose.matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)].map(([, target, anchor]) => ({
      page: target ? posix.normalize(posix.join(posix.dirname(doc), target)) : doc,
      anchor: anchor!,
    }));
    expect(links.filter(({ page, anchor }) => page.endsWith('.md') && !anchorsOf(page).has(anchor))).toEqual([]);
  });
});

describe('each file of src/ says what it is for', () => {
  // The lint (eslint.config.js) holds the code's shape; this is the one convention no standard rule reads.
  const scripts = paths.filter((path) => path.startsWith('src/') && !path.includes('/__generated__/') && /\.(ts|js|mjs)$/.test(path));

  it('opens with a comment (after a shebang), before any code', () => {
    expect(scripts.length).toBeGreaterThan(40);
    expect(scripts.filter((path) => !/^(#![^\n]*\n)?\s*(\/\/|\/\*)/.test(read(path)))).toEqual([]);
  });
});

describe('each test file says what it tests', () => {
  const tests = paths.filter((path) => path.startsWith('test/') && /\.test(-d)?\.ts$/.test(path));

  it('opens with a comment naming its subject, before any code', () => {
    expect(tests.length).toBeGreaterThan(60);
    expect(tests.filter((path) => !/^\s*(\/\/|\/\*)/.test(read(path)))).toEqual([]);
  });
});
