// The public SDL (schema/), read once, with what the upstream declaration adds to it: the facts
// the resolvers and the settings take from it.
import { readFileSync, readdirSync } from 'node:fs';
import {
  buildASTSchema,
  GraphQLEnumType,
  Kind,
  parse,
  print,
  visit,
  type DocumentNode,
  type EnumValueDefinitionNode,
  type GraphQLSchema,
  type StringValueNode,
} from 'graphql';
import { AVAILABLE_FROM, DECLARED_FIELDS, type DeclaredField } from './order-fields.js';

const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

/** The SDL files as written, one per domain. */
function readTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

/** The SDL, one document per domain, with what the declaration adds (`deriveTypeDefs`). */
export function loadTypeDefs(): string[] {
  return deriveTypeDefs(readTypeDefs().map((source) => parse(source))).map((document) => print(document));
}

const description = (value: string): StringValueNode => ({ kind: Kind.STRING, value, block: true });
const sentence = (text: string | undefined) => (text ?? '').trim().replace(/\.?$/, '.');

/** What a field is, as its description starts (up to its first parenthesis or full stop), in lower case when a word. */
const summary = (text: string) => {
  const start = text.split(/ \(|\.|;/)[0]!.trim();
  return /^[A-Z][a-z]/.test(start) ? start[0]!.toLowerCase() + start.slice(1) : start;
};

/**
 * The SDL with the facts that live in the upstream declaration (`x-active-from`, `x-graph`)
 * written into it, so that the SDL in schema/ never restates them:
 * - every stage-bound Order field's description ends with the stage it is available from;
 * - the `OrderPart` enum has one value per stage-bound Order field, in `availability`'s order
 *   (the SDL declares the enum with no values);
 * - each `OrderStatus` stage at which parts come says which become available.
 * It refuses a declared field the SDL lacks or makes non-null: a call that fails makes its
 * field null with its error, and a non-null field would pass that null on to the parent, so
 * one failed call would null every order (or the customer) of the answer.
 */
export function deriveTypeDefs(
  documents: readonly DocumentNode[],
  declared: readonly DeclaredField[] = DECLARED_FIELDS,
  availableFrom: Readonly<Record<string, string>> = AVAILABLE_FROM,
): DocumentNode[] {
  const byCoordinate = new Map(declared.map((entry) => [`${entry.type}.${entry.field}`, entry]));
  const found = new Set<string>();
  const stageBound = Object.entries(availableFrom);
  const fieldSummaries = new Map<string, string>();

  const withFields = documents.map((document) =>
    visit(document, {
      FieldDefinition(node, _key, _parent, _path, ancestors) {
        const owner = ancestors.at(-1);
        if (!owner || !('kind' in owner) || (owner.kind !== Kind.OBJECT_TYPE_DEFINITION && owner.kind !== Kind.OBJECT_TYPE_EXTENSION))
          return;
        const coordinate = `${owner.name.value}.${node.name.value}`;
        const entry = byCoordinate.get(coordinate);
        if (!entry) return;
        found.add(coordinate);
        if (node.type.kind === Kind.NON_NULL_TYPE) {
          throw new Error(
            `schema/: ${coordinate} must be nullable: the upstream call ${entry.operation} backs it, and when that call fails the field is null with its error; non-null, that null would reach its parent and null every ${entry.type} of the answer.`,
          );
        }
        if (entry.type === 'Order') fieldSummaries.set(entry.field, summary(node.description?.value ?? entry.field));
        if (!entry.activeFrom) return;
        const stage = `Available from ${entry.activeFrom}: earlier, null with no error (\`availability\` says so).`;
        return { ...node, description: description(`${sentence(node.description?.value)} ${stage}`.trim()) };
      },
    }),
  );
  const missing = [...byCoordinate.keys()].filter((coordinate) => !found.has(coordinate));
  if (missing.length > 0) throw new Error(`schema/: the upstream declaration backs ${missing.join(', ')}, which the SDL does not have`);

  return withFields.map((document) =>
    visit(document, {
      EnumTypeDefinition(node) {
        if (node.name.value === 'OrderPart') {
          if (node.values?.length)
            throw new Error('schema/: OrderPart lists no values: they come from the declaration (one per stage-bound Order field)');
          const values = stageBound.map(([field, from]): EnumValueDefinitionNode => ({
            kind: Kind.ENUM_VALUE_DEFINITION,
            name: { kind: Kind.NAME, value: field.toUpperCase() },
            description: description(`\`Order.${field}\`: ${fieldSummaries.get(field) ?? field}, from ${from}.`),
          }));
          return { ...node, values };
        }
        if (node.name.value !== 'OrderStatus') return;
        const values = node.values?.map((value) => {
          const coming = stageBound.filter(([, from]) => from === value.name.value).map(([field]) => `\`${field}\``);
          if (coming.length === 0) return value;
          const verb = coming.length === 1 ? 'becomes' : 'become';
          const text = `${sentence(value.description?.value).slice(0, -1)}; ${coming.join(' and ')} ${verb} available.`;
          return { ...value, description: description(text) };
        });
        return { ...node, values };
      },
    }),
  );
}

/**
 * The SDL as a schema without resolvers: what its types and defaults say. Built each time it is
 * asked, not kept: the gateway asks once, at start (the default page size), and a second schema
 * of the whole SDL kept beside the executable one would hold 0.5 MB of its idle heap.
 */
const sdl = (): GraphQLSchema => buildASTSchema(parse(loadTypeDefs().join('\n')));

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
