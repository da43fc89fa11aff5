// The public SDL (schema/), read once: the facts the resolvers and the settings take from it.
import { readFileSync, readdirSync } from 'node:fs';
import { buildASTSchema, GraphQLEnumType, parse, type GraphQLSchema } from 'graphql';

const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

/** The SDL, one file per domain. */
export function loadTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

let types: GraphQLSchema | undefined;
/** The SDL as a schema without resolvers: what its types and defaults say. */
const sdl = () => (types ??= buildASTSchema(parse(loadTypeDefs().join('\n'))));

/** The page of orders a query gets unless it asks otherwise (the SDL's default `first` of `Query.orders`): a whole order's page. */
export function defaultOrdersPage(): number {
  const first = sdl()
    .getQueryType()
    ?.getFields()
    .orders?.args.find((arg) => arg.name === 'first')?.defaultValue;
  if (typeof first !== 'number') throw new Error('schema/: Query.orders has no default page size');
  return first;
}

/** The values of one of the SDL's enums, in its order, but UNKNOWN (what an unlisted upstream value maps to). */
export function knownEnumValues<T extends string>(name: string): Exclude<T, 'UNKNOWN'>[] {
  const type = sdl().getType(name);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`schema/: no enum ${name}`);
  return type
    .getValues()
    .map((value) => value.name as T)
    .filter((value): value is Exclude<T, 'UNKNOWN'> => value !== 'UNKNOWN');
}
