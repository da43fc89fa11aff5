import { readFileSync } from 'node:fs';
import { generate, type CodegenConfig } from '@graphql-codegen/cli';
import { buildSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graph/schema.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const SCHEMA_FILE = new URL('../../schema.graphql', import.meta.url);

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

// The consumer codegen.ts the README shows, with the schema taken from either source.
const consumerConfig = (schema: string): CodegenConfig => ({
  schema,
  documents: 'src/client/documents/*.graphql',
  silent: true,
  generates: {
    'gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { enumsAsTypes: true, scalars: { DateTime: 'string', Date: 'string', Decimal: 'string' } },
    },
  },
});

describe('types for a consumer project', () => {
  it('schema.graphql is up to date with schema/ (run npm run schema:print)', () => {
    const printed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(printed).toContain(printSchema(buildSchema(loadTypeDefs().join('\n'))));
  });

  it.each([
    ['the printed SDL', () => 'schema.graphql'],
    ['the running endpoint (introspection)', () => harness.endpoint],
  ])('codegen from %s gives the same typed WholeOrder', async (_name, schema) => {
    const outputs = await generate(consumerConfig(schema()), false);
    const graphql = outputs.find((o: { filename: string }) => o.filename.endsWith('gql/graphql.ts'))!.content;
    expect(graphql).toMatch(/export type WholeOrderQuery = \{ me: \{ id: string, email: string \| null/);
    // Enums as string unions.
    const orderStatus = graphql.slice(graphql.indexOf('export type OrderStatus ='), graphql.indexOf('export type', graphql.indexOf('export type OrderStatus =') + 1));
    expect(orderStatus).toContain("| 'READY_FOR_PICKUP'");
    expect(orderStatus).toContain("| 'UNKNOWN'");
    expect(graphql).toContain('export const WholeOrderDocument');
  });
});
