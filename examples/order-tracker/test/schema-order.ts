// An order as the page's query answers it, made from the schema (schema.graphql, which the SDK
// ships) and the query's own text, not from the page's code: the parts the query selects on
// Order, and an order holding a value for every field it selects. The page's tests hold no
// list of parts: a part added to the query is in these. Imports nothing of the page's, so the
// gateway's browser test reads it too.
import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';

const schema = buildSchema(readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'));
const query = parse(readFileSync(new URL('../src/tracker.graphql', import.meta.url), 'utf8'));
const fragments = query.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);

/** Each field a selection set selects on `type`, through its fragments, with the field's type and what it selects. */
function fields(type: GraphQLObjectType, set: SelectionSetNode): { name: string; type: GraphQLOutputType; set?: SelectionSetNode }[] {
  return set.selections.flatMap((selection) => {
    if (selection.kind === Kind.INLINE_FRAGMENT) return fields(type, selection.selectionSet);
    if (selection.kind === Kind.FRAGMENT_SPREAD)
      return fields(type, fragments.find((f) => f.name.value === selection.name.value)!.selectionSet);
    const field = type.getFields()[selection.name.value];
    if (!field) throw new Error(`${type.name}.${selection.name.value} is not in the schema`);
    return [{ name: selection.alias?.value ?? selection.name.value, type: field.type, set: selection.selectionSet }];
  });
}

/** The query's selection on each order of `me.orders`. */
function ordersSelection(): SelectionSetNode {
  const operation = query.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const me = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'me');
  const orders =
    me?.kind === Kind.FIELD ? me.selectionSet?.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'orders') : undefined;
  if (orders?.kind !== Kind.FIELD || !orders.selectionSet) throw new Error('tracker.graphql selects no me { orders { … } }');
  return orders.selectionSet;
}

const ORDER = schema.getType('Order') as GraphQLObjectType;

/** The objects and lists of objects the query selects on Order, in its order. */
export const SELECTED_PARTS = fields(ORDER, ordersSelection())
  .filter((field) => isObjectType(getNamedType(field.type)))
  .map((field) => field.name);

let counter = 0;

/** A value of `type` for what `set` selects: each text its field's name and a number, two items per list, an enum's first value. */
function sample(type: GraphQLOutputType, name: string, set?: SelectionSetNode): unknown {
  if (isNonNullType(type)) return sample(type.ofType, name, set);
  if (isListType(type)) return [sample(type.ofType, name, set), sample(type.ofType, name, set)];
  if (isObjectType(type))
    return Object.fromEntries(fields(type, set!).map((field) => [field.name, sample(field.type, field.name, field.set)]));
  if (isEnumType(type)) return type.getValues().find((value) => value.name !== 'UNKNOWN')!.name;
  const n = ++counter;
  switch (type.name) {
    case 'Int':
      return n;
    case 'Float':
      return n + 0.5;
    case 'Boolean':
      return true;
    case 'DateTime':
      return new Date(Date.UTC(2026, 0, 1, 9, n)).toISOString();
    case 'Date':
      return '2026-01-02';
    case 'Decimal':
      return `${n}.50`;
    default:
      return `${name} ${n}`;
  }
}

/** An order in `status` holding a value for every field the query selects, with this availability and these values over them. */
export function schemaOrder(
  status: string,
  availability: { part: string; from: string; available: boolean }[],
  values: Record<string, unknown> = {},
) {
  const order = sample(ORDER, 'order', ordersSelection()) as Record<string, unknown>;
  return { ...order, id: 'order-2', reservationId: 'OC-PARTS', status, rawStatus: status, availability, ...values };
}
