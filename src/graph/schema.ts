// The graph: the public SDL (schema/), the per-request context, loaders and resolvers.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GraphQLResolverMap } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createSchema } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { openEnums } from './enums.js';
import { checkedEntities, entityResolvers } from './resolvers/entities.js';
import { resolvers } from './resolvers/index.js';
import { loadTypeDefs } from './sdl.js';

const FEDERATION_SDL = new URL('../../schema/subgraph/federation.graphql', import.meta.url);
// Loaded only for a subgraph (SUBGRAPH=on): a gateway that is not one never holds Apollo's
// modules (about 3 MB of heap). require keeps createGraphSchema synchronous.
const loadSubgraph = () => createRequire(import.meta.url)('@apollo/subgraph') as typeof import('@apollo/subgraph');

/**
 * The executable schema: the SDL with its resolvers, its enums with UNKNOWN open to values
 * the upstream adds (enums.ts); as an Apollo Federation v2 subgraph
 * (`_service`, `_entities`, Order and Customer as entities) when `subgraph` is set.
 */
export function createGraphSchema({ subgraph = false }: { subgraph?: boolean } = {}) {
  if (!subgraph) return openEnums(createSchema<GraphQLContext>({ typeDefs: loadTypeDefs(), resolvers }));
  const typeDefs = parse([...loadTypeDefs(), readFileSync(FEDERATION_SDL, 'utf8')].join('\n'));
  const withEntities = {
    ...resolvers,
    Order: { ...resolvers.Order, ...entityResolvers.Order },
    Customer: { ...resolvers.Customer, ...entityResolvers.Customer },
  };
  // The generated Resolvers type and Apollo's resolver map describe the same object differently.
  const schema = openEnums(
    loadSubgraph().buildSubgraphSchema([{ typeDefs, resolvers: withEntities as GraphQLResolverMap<GraphQLContext> }]),
  );
  const entities = schema.getQueryType()?.getFields()._entities;
  if (entities?.resolve) entities.resolve = checkedEntities(entities.resolve);
  return schema;
}
