// The shape of src/, checked on every run: no function runs past 80 lines, and no table
// that lives as long as the process is keyed by a request. Read with a real parser
// (@babel/parser), so strings, comments and nesting cannot fool the counts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import type { Node, TSType } from '@babel/types';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MAX_LINES = 80;
// Seed data: long literal tables, not logic.
const LENGTH_EXEMPT = new Set(['simulator/data.ts']);

/** Every hand-written script under src/ (relative paths): generated folders and declarations left out. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__generated__' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative(SRC, path)] : [];
  });
}

type Visit = (node: Node, parent: Node | null, inFunction: boolean) => void;

const isFunction = (node: Node) =>
  ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod'].includes(node.type);

// Code in these runs once per call or per instance, not once per module.
const opensScope = (node: Node) =>
  isFunction(node) || ((node.type === 'ClassProperty' || node.type === 'ClassPrivateProperty') && !node.static);

function walk(node: Node, visit: Visit, parent: Node | null = null, inFunction = false) {
  visit(node, parent, inFunction);
  const inner = inFunction || opensScope(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key.endsWith('Comments')) continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child && typeof child === 'object' && typeof child.type === 'string') walk(child as Node, visit, node, inner);
    }
  }
}

const parseModule = (file: string, text: string) =>
  parse(text, { sourceType: 'module', plugins: file.endsWith('.ts') ? ['typescript'] : [], errorRecovery: false }).program;

/** A readable name for a function: its own, its variable's, its property's, or where it is passed. */
function functionName(node: Node, parent: Node | null, text: string): string {
  const source = (part: Node) => text.slice(part.start!, part.end!).replace(/\s+/g, ' ').slice(0, 40);
  if ((node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') && node.id) return node.id.name;
  if (node.type === 'ObjectMethod' || node.type === 'ClassMethod') return source(node.key);
  if (node.type === 'ClassPrivateMethod') return `#${node.key.id.name}`;
  switch (parent?.type) {
    case 'VariableDeclarator':
    case 'AssignmentPattern':
      return source(parent.type === 'VariableDeclarator' ? parent.id : parent.left);
    case 'AssignmentExpression':
      return source(parent.left);
    case 'ObjectProperty':
    case 'ClassProperty':
      return source(parent.key);
    case 'CallExpression':
    case 'NewExpression':
      return parent.callee === node ? '(immediately invoked)' : `callback of ${source(parent.callee)}`;
    default:
      return '(anonymous)';
  }
}

interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

function functionLengths(file: string, text: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  walk(parseModule(file, text), (node, parent) => {
    if (!isFunction(node)) return;
    const lines = node.loc!.end.line - node.loc!.start.line + 1;
    found.push({ where: `src/${file}:${node.loc!.start.line}`, name: functionName(node, parent, text), lines });
  });
  return found;
}

const describeLength = ({ where, name, lines }: FunctionLength) => `${where} ${name} (${lines} lines)`;

// A request-keyed side table is state a reader cannot see from the request itself (it must
// know the table exists and who fills it first), and a module-level one is shared by every
// gateway in the process. The rule: a `new Map` or `new WeakMap` evaluated outside any
// function (at the top level, in a top-level object, in a static class field) may not be
// keyed by a per-request thing. Its key type is the first type argument on the `new`, or
// else on the variable's annotation; a key type is per-request when it names Request or a
// type starting with Request (RequestInfo, RequestScope…), IncomingMessage, ServerResponse,
// Http2ServerRequest, AbortSignal, AbortController, a type ending in Context (a GraphQL
// context) or Scope, or admits anything (object, WeakKey, any, unknown). A module-level table
// that names no key type and starts empty fails too: its key could be anything. Tables made
// inside a function (per gateway, per call) and per-document caches (WeakMap<DocumentNode, …>)
// pass. It cannot see a table made by a factory called at the top level: that needs a reader.
const PER_REQUEST = /^(Request\w*|IncomingMessage|ServerResponse|Http2ServerRequest|AbortSignal|AbortController|\w*Context|\w*Scope|object|WeakKey|any|unknown)$/;

function typeNames(type: TSType): string[] {
  const names: string[] = [];
  walk(type, (node) => {
    if (node.type === 'TSTypeReference') names.push(node.typeName.type === 'Identifier' ? node.typeName.name : node.typeName.right.name);
    if (node.type === 'TSObjectKeyword') names.push('object');
    if (node.type === 'TSAnyKeyword') names.push('any');
    if (node.type === 'TSUnknownKeyword') names.push('unknown');
  });
  return names;
}

interface ModuleTable {
  where: string;
  kind: string;
  /** The key type's names; null when the table names none. */
  key: string[] | null;
  empty: boolean;
}

function moduleTables(file: string, text: string): ModuleTable[] {
  const found: ModuleTable[] = [];
  walk(parseModule(file, text), (node, parent, inFunction) => {
    if (inFunction || node.type !== 'NewExpression' || node.callee.type !== 'Identifier') return;
    if (node.callee.name !== 'Map' && node.callee.name !== 'WeakMap') return;
    let keyType = node.typeParameters?.params[0];
    const annotation = parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier' ? parent.id.typeAnnotation : null;
    if (!keyType && annotation?.type === 'TSTypeAnnotation' && annotation.typeAnnotation.type === 'TSTypeReference') {
      keyType = annotation.typeAnnotation.typeParameters?.params[0];
    }
    found.push({ where: `src/${file}:${node.loc!.start.line}`, kind: node.callee.name, key: keyType ? typeNames(keyType) : null, empty: node.arguments.length === 0 });
  });
  return found;
}

const requestKeyed = (table: ModuleTable) => (table.key ? table.key.some((name) => PER_REQUEST.test(name)) : table.empty);
const describeTable = (table: ModuleTable) => `${table.where} ${table.kind}<${table.key?.join(' | ') ?? '?'}, …>`;

const files = sourceFiles().map((file) => ({ file, text: readFileSync(join(SRC, file), 'utf8') }));

describe('the rules read what they are meant to', () => {
  it('counts a function from its first line to its last, and names it', () => {
    const body = Array.from({ length: MAX_LINES - 1 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const lengths = functionLengths('x.ts', `export function long() {\n${body}\n  return () => 1;\n}\nconst short = () => {\n};\n(() => {})();`);
    expect(lengths.map(describeLength)).toEqual(['src/x.ts:1 long (82 lines)', 'src/x.ts:81 (anonymous) (1 lines)', 'src/x.ts:83 short (2 lines)', 'src/x.ts:85 (immediately invoked) (1 lines)']);
  });

  it('tells a module-level table keyed by requests from per-call tables and document caches', () => {
    const source = [
      'const infos = new WeakMap<Request, Info>();',
      'const running: WeakMap<AbortSignal, Set<() => void>> = new WeakMap();',
      'export const byScope = { table: new Map<RequestScope | string, number>() };',
      'class Holder { static seen = new WeakMap<GraphQLContext, true>(); mine = new WeakMap<Request, 1>(); }',
      'const anything = new WeakMap();',
      'const loose = new WeakMap<object, 1>();',
      'const documents = new WeakMap<DocumentNode, boolean>();',
      "const named = new Map(Object.entries({ a: 'b' }));",
      'function perCall() { return new WeakMap<Request, 1>(); }',
      'const perGateway = () => ({ outcomes: new WeakMap<Request, 1>() });',
    ].join('\n');
    const flagged = moduleTables('x.ts', source).filter(requestKeyed).map(describeTable);
    expect(flagged).toEqual([
      'src/x.ts:1 WeakMap<Request, …>',
      'src/x.ts:2 WeakMap<AbortSignal, …>',
      'src/x.ts:3 Map<RequestScope, …>',
      'src/x.ts:4 WeakMap<GraphQLContext, …>',
      'src/x.ts:5 WeakMap<?, …>',
      'src/x.ts:6 WeakMap<object, …>',
    ]);
  });

  it('finds the source files, their functions and the module-level caches', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files.map(({ file }) => file)).toContain('server/graphiql-sign-in.js');
    const tables = files.flatMap(({ file, text }) => moduleTables(file, text));
    expect(tables.some((table) => table.key?.includes('DocumentNode'))).toBe(true);
  });
});

describe('the shape of src/', () => {
  it(`no function runs past ${MAX_LINES} lines (seed data aside)`, () => {
    const long = files
      .filter(({ file }) => !LENGTH_EXEMPT.has(file))
      .flatMap(({ file, text }) => functionLengths(file, text))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(describeLength);
    expect(long).toEqual([]);
  });

  it('no module-level Map or WeakMap is keyed by requests', () => {
    const keyed = files.flatMap(({ file, text }) => moduleTables(file, text)).filter(requestKeyed).map(describeTable);
    expect(keyed).toEqual([]);
  });
});

describe('each file of src/ says what it is for', () => {
  it('opens with a comment (after a shebang), before any code', () => {
    const silent = files.filter(({ text }) => !/^(#![^\n]*\n)?\s*(\/\/|\/\*)/.test(text)).map(({ file }) => file);
    expect(silent).toEqual([]);
  });
});
