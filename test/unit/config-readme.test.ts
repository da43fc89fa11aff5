// The README's settings tables against the schema (src/server/config.ts, their source): every
// variable the gateway reads is in a table and nothing else is, and each default a table states
// is the schema's.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { envSchema } from '../../src/server/config.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const TABLE_HEADER = '| variable | default | meaning |';

/** Each variable of the settings tables (`| variable | default | meaning |`) with the default its row states, or null. */
function tableDefaults(markdown: string): { name: string; stated: string | null }[] {
  const rows: { name: string; stated: string | null }[] = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (line === TABLE_HEADER) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) rows.push(...row(line));
  }
  return rows;
}

/**
 * A row names one variable or several (`PORT` / `HOST`); its default cell gives one value for
 * all of them, or one each in the same order. The stated default is the code span a part starts
 * with (`5000`, `100` (was `5`)); a part that starts otherwise (unset, none, local origins…)
 * states none.
 */
function row(line: string): { name: string; stated: string | null }[] {
  const [variables = '', defaults = ''] = line
    .slice(1)
    .split('|')
    .map((cell) => cell.trim());
  const names = [...variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!);
  const parts = defaults.split(' / ').map((part) => /^`([^`]+)`/.exec(part)?.[1] ?? null);
  if (parts.length !== 1 && parts.length !== names.length)
    throw new Error(`README: ${names.length} variables but ${parts.length} defaults in ${line}`);
  return names.map((name, index) => ({ name, stated: parts.length === 1 ? parts[0]! : parts[index]! }));
}

/** Where the README and the schema disagree, one line each. */
function disagreements(markdown: string): string[] {
  const rows = tableDefaults(markdown);
  const settings: Record<string, z.ZodType> = envSchema.shape;
  const names = rows.map((r) => r.name);
  const found = Object.keys(settings)
    .filter((name) => !names.includes(name))
    .map((name) => `${name} is not in the README's tables`);
  for (const [index, { name, stated }] of rows.entries()) {
    const setting = settings[name];
    const problem = !setting
      ? `${name} is in the README but is no setting`
      : names.indexOf(name) !== index
        ? `${name} is in the README twice`
        : defaultProblem(name, stated, setting);
    if (problem) found.push(problem);
  }
  return found;
}

function defaultProblem(name: string, stated: string | null, setting: z.ZodType): string | undefined {
  const schemaDefault = setting.safeParse(undefined).data;
  if (stated === null) {
    // An empty list (TRUSTED_PROXIES) is written as none.
    if (schemaDefault === undefined || isDeepStrictEqual(schemaDefault, [])) return undefined;
    return `${name}: the README states no default, the schema's is ${JSON.stringify(schemaDefault)}`;
  }
  const value = setting.safeParse(stated);
  if (!value.success) return `${name}: the README's default \`${stated}\` is not a value it takes`;
  // Without a default in the schema, the default is the mapping's (GRAPHIQL off in production…), told in words.
  if (schemaDefault === undefined || isDeepStrictEqual(value.data, schemaDefault)) return undefined;
  return `${name}: the README's default is \`${stated}\`, the schema's ${JSON.stringify(schemaDefault)}`;
}

describe("the README's settings tables", () => {
  it('name every setting once, nothing else, with the schema’s defaults', () => {
    expect(disagreements(README)).toEqual([]);
  });

  it('are read as they are written: several variables to a row, a default each or one for all', () => {
    const rows = new Map(tableDefaults(README).map(({ name, stated }) => [name, stated]));
    expect([rows.get('PORT'), rows.get('HOST')]).toEqual(['4000', '127.0.0.1']);
    expect([rows.get('REFRESH_FAILURES_PER_TOKEN'), rows.get('REFRESH_FAILURE_WINDOW_S')]).toEqual(['5', '900']);
    expect([rows.get('OTEL_EXPORTER_OTLP_PROTOCOL'), rows.get('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')]).toEqual([
      'http/protobuf',
      'http/protobuf',
    ]);
    expect([rows.get('LOGIN_FAILURES_PER_USERNAME'), rows.get('REDIS_URL'), rows.get('TRUSTED_PROXIES')]).toEqual(['100', null, null]);
  });

  it('fail on a wrong default, a missing setting, an unknown variable and a value the setting refuses', () => {
    const doctored = README.replace('| `UPSTREAM_TIMEOUT_MS` | `5000` |', '| `UPSTREAM_TIMEOUT_MS` | `6000` |')
      .replace(/^\| `SUBGRAPH` .*\n/m, '')
      .replace('| `LOG_LEVEL` | `info` |', '| `LOG_LEVEL` | `loud` |')
      .replace(TABLE_HEADER + '\n|---|---|---|\n', `${TABLE_HEADER}\n|---|---|---|\n| \`SUBGRAPHS\` | \`off\` | a typo |\n`);
    expect(doctored).not.toBe(README);
    expect(disagreements(doctored)).toEqual([
      "SUBGRAPH is not in the README's tables",
      'SUBGRAPHS is in the README but is no setting',
      "UPSTREAM_TIMEOUT_MS: the README's default is `6000`, the schema's 5000",
      "LOG_LEVEL: the README's default `loud` is not a value it takes",
    ]);
  });
});
