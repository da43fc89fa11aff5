// The error codes are one list (src/error-codes.ts): the SDL's description, docs/errors.md,
// docs/ARCHITECTURE.md, the other docs and the codes the server writes out itself follow it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, type ObjectTypeDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, REQUEST_ERROR_CODES, REQUEST_ERRORS } from '../../src/error-codes.js';
import { DOC_PAGES } from '../helpers/docs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const FIELD_CODES = [...ERROR_CODES].sort();
const REQUEST_STATUSES = Object.fromEntries(REQUEST_ERROR_CODES.map((code) => [code, REQUEST_ERRORS[code].status]));
const ALL_CODES = new Set<string>([...ERROR_CODES, ...REQUEST_ERROR_CODES]);

/** The codes a text names, in backticks, sorted and once each. */
const codesIn = (text: string) => [...new Set([...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)`/g)].map((match) => match[1]!))].sort();

/** Each code of a refusal list with its status: codes joined by " / " share the "(NNN" after them. */
function statusesIn(text: string): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const [, group, status] of text.matchAll(/((?:`[A-Z_]+`\s*\/\s*)*`[A-Z_]+`)\s*\((\d{3})\b/g)) {
    for (const [, code] of group!.matchAll(/`([A-Z_]+)`/g)) statuses[code!] = Number(status);
  }
  return statuses;
}

/** A markdown section, from its `## ` heading to the next. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** The one paragraph of a text that opens with `opening`. */
function paragraph(text: string, opening: RegExp): string {
  const found = text.split(/\n\s*\n/).filter((candidate) => opening.test(candidate.trim()));
  expect(found, `one paragraph opening with ${opening}`).toHaveLength(1);
  return found[0]!;
}

const REFUSALS = /^(Requests|A request) refused before anything runs/;

/** Query's description in the SDL: the public API's own account of its errors. */
function queryDescription(): string {
  const document = parse(read('schema/base.graphql'));
  const query = document.definitions.find(
    (definition): definition is ObjectTypeDefinitionNode =>
      definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === 'Query',
  );
  return query?.description?.value ?? '';
}

describe('the one list of error codes', () => {
  it('names each code once, field codes apart from refusals, each refusal with a 4xx status', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(ERROR_CODES).toContain('UPSTREAM_BUDGET_EXCEEDED');
    expect(REQUEST_ERROR_CODES).toContain('PERSISTED_QUERY_NOT_FOUND');
    expect(Object.values(REQUEST_STATUSES).filter((status) => status < 400 || status > 499)).toEqual([]);
  });

  it('the SDL: Query lists every field code, and every refusal with its status', () => {
    const description = queryDescription();
    expect(codesIn(paragraph(description, /^Read operations/))).toEqual(FIELD_CODES);
    const refusals = paragraph(description, REFUSALS);
    expect(statusesIn(refusals)).toEqual(REQUEST_STATUSES);
    expect(codesIn(refusals)).toEqual(Object.keys(REQUEST_STATUSES).sort());
  });

  it('docs/errors.md: every field code, and every refusal with its status', () => {
    const errors = read('docs/errors.md');
    expect(codesIn(paragraph(errors, /^Every upstream-backed field/))).toEqual(FIELD_CODES);
    const refusals = paragraph(errors, REFUSALS);
    expect(statusesIn(refusals)).toEqual(REQUEST_STATUSES);
    expect(codesIn(refusals)).toEqual(Object.keys(REQUEST_STATUSES).sort());
  });

  it("docs/ARCHITECTURE.md's Errors section: the table's codes are the field codes; every refusal with its status", () => {
    const errors = section(read('docs/ARCHITECTURE.md'), 'Errors');
    const codeColumn = errors
      .split('\n')
      .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
      .slice(1)
      .map((row) => row.split('|').at(-2) ?? '')
      .join(' ');
    expect(codesIn(codeColumn)).toEqual(FIELD_CODES);
    const refusals = paragraph(errors, REFUSALS);
    expect(statusesIn(refusals)).toEqual(REQUEST_STATUSES);
    expect(codesIn(refusals)).toEqual(Object.keys(REQUEST_STATUSES).sort());
  });

  it('every "<status> `CODE`" in the docs and the SDL (the upstream\'s own codes aside) is a refusal the list gives that status', () => {
    const texts = [
      ...DOC_PAGES,
      ...readdirSync(join(ROOT, 'schema'))
        .filter((name) => name.endsWith('.graphql'))
        .map((name) => `schema/${name}`),
    ];
    const pairs = texts.flatMap((path) =>
      [...read(path).matchAll(/(?<!upstream )\b([1-5]\d\d) `([A-Z][A-Z0-9_]+)`/g)].map(([, status, code]) => ({
        path,
        code: code!,
        status: Number(status),
      })),
    );
    expect(pairs.filter(({ path }) => path === 'docs/limits.md').length).toBeGreaterThan(5);
    expect(pairs.filter(({ code, status }) => REQUEST_STATUSES[code] !== status)).toEqual([]);
  });

  it('every code the server writes into an error itself is on the list', () => {
    const sourceFiles = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? ['simulator', '__generated__'].includes(entry.name)
            ? []
            : sourceFiles(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    const written = sourceFiles('src').flatMap((path) =>
      [...read(path).matchAll(/extensions:\s*\{\s*code:\s*'([A-Z_]+)'/g)].map((match) => `${path}: ${match[1]}`),
    );
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((site) => !ALL_CODES.has(site.split(': ')[1]!))).toEqual([]);
  });
});
