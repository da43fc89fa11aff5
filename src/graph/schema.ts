// The graph: the public SDL (schema/), the per-request context, loaders and resolvers.
import { readFileSync, readdirSync } from 'node:fs';
import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { buildASTSchema, parse } from 'graphql';
import { createSchema } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { checkedEntities, entityResolvers } from './resolvers/entities.js';
import { resolvers } from './resolvers/index.js';

const SCHEMA_DIR = new URL('../../schema/', import.meta.url);
const FEDERATION_SDL = new URL('subgraph/federation.graphql', SCHEMA_DIR);

/** The SDL, one file per domain. */
export function loadTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

/** The page of orders a query gets unless it asks otherwise (the SDL's default `first` of `Query.orders`): a whole order's page. */
export function defaultOrdersPage(): number {
  const first = buildASTSchema(parse(loadTypeDefs().join('\n')))
    .getQueryType()
    ?.getFields()
    .orders?.args.find((arg) => arg.name === 'first')?.defaultValue;
  if (typeof first !== 'number') throw new Error('schema/: Query.orders has no default page size');
  return first;
}

/**
 * The executable schema: the SDL with its resolvers; as an Apollo Federation v2 subgraph
 * (`_service`, `_entities`, Order and Customer as entities) when `subgraph` is set.
 */
export function createGraphSchema({ subgraph = false }: { subgraph?: boolean } = {}) {
  if (!subgraph) return createSchema<GraphQLContext>({ typeDefs: loadTypeDefs(), resolvers });
  const typeDefs = parse([...loadTypeDefs(), readFileSync(FEDERATION_SDL, 'utf8')].join('\n'));
  const withEntities = {
    ...resolvers,
    Order: { ...resolvers.Order, ...entityResolvers.Order },
    Customer: { ...resolvers.Customer, ...entityResolvers.Customer },
  };
  // The generated Resolvers type and Apollo's resolver map describe the same object differently.
  const schema = buildSubgraphSchema([{ typeDefs, resolvers: withEntities as GraphQLResolverMap<GraphQLContext> }]);
  const entities = schema.getQueryType()?.getFields()._entities;
  if (entities?.resolve) entities.resolve = checkedEntities(entities.resolve);
  return schema;
}
