// The graph: the public SDL (schema/), the per-request context, loaders and resolvers.
import { readFileSync, readdirSync } from 'node:fs';
import { createSchema } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { resolvers } from './resolvers/index.js';

const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

/** The SDL, one file per domain. */
export function loadTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

/** The executable schema: the SDL with its resolvers. */
export const createGraphSchema = () => createSchema<GraphQLContext>({ typeDefs: loadTypeDefs(), resolvers });
