// The reading that holds every upstream body to its model's shape (models.ts) before anything
// else touches the body: the operations' checks, the resolvers, the order history and the live
// polls all get what this reading made, never the parsed JSON itself. The shapes follow
// `upstream/openapi.yaml`, from which they are derived (src/tools/upstream-codegen.ts).
import { UpstreamFailedError } from '../errors.js';
import { CONTRACT, type OperationName } from './contract.js';
import { SHAPES, STRING_LENGTHS, type Leaf, type Model, type ModelName, type Shape, type StringKind } from './models.js';
import { epochToDateTime, isAmount, isDateTime } from './values.js';

/**
 * A field the upstream sent in the wrong shape, standing in for its value: a resolver that
 * returns it, or a mapping that reads it (`readable`), makes that field null with this
 * UPSTREAM_ERROR, and only that field. Its message names the field, never the value.
 */
export class UnreadableValue extends UpstreamFailedError {
  constructor(operation: OperationName, path: string) {
    super(`The upstream sent the field ${path} in a shape its contract does not allow (${operation}).`, { operation });
  }
}

/** The value itself, or the field's error thrown when the upstream sent it in the wrong shape. */
export function readable<T>(value: T): Exclude<T, UnreadableValue> {
  if (value instanceof UnreadableValue) throw value;
  return value as Exclude<T, UnreadableValue>;
}

const stringOf = (kind: StringKind) => {
  const longest = STRING_LENGTHS[kind];
  return (value: unknown) => typeof value === 'string' && value.length <= longest;
};
/** The largest integer a GraphQL Int holds (32 bits, signed). */
const MAX_INT = 2 ** 31 - 1;
const CURRENCY = /^[A-Z]{3}$/;

const LEAVES: Record<Leaf, (value: unknown) => boolean> = {
  id: stringOf('id'),
  code: stringOf('code'),
  text: stringOf('text'),
  token: stringOf('token'),
  currency: (value) => typeof value === 'string' && CURRENCY.test(value),
  int: (value) => Number.isInteger(value) && Math.abs(value as number) <= MAX_INT,
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  flag: (value) => typeof value === 'boolean',
  amount: isAmount,
  epoch: (value) => epochToDateTime(value) !== null,
  dateTime: isDateTime,
};

/** Where a reader is in a body: its keys and indexes, made into text only for an UnreadableValue. */
type Path = Array<string | number>;
/** A path as text, as error messages name a field: `orders[0].product.currencyCode`. */
export const pathText = (path: readonly (string | number)[]) =>
  path.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : text ? `${text}.${step}` : step), '');

/** What is not of its shape. */
const NOT = Symbol('not of its shape');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` read as `shape`, by the shape alone: a leaf's kind is checked before anything reads
 * it, an object is copied field by field (what the table does not name is left behind, a
 * `__proto__` key among it), a list item by item. So nothing deeper than the table is ever
 * walked, whatever the body nests. A field of the wrong shape becomes an UnreadableValue
 * (copied with its object; as JSON, an object that is of no field's shape, so it is unreadable
 * again wherever it is read back); a required one makes its object not one. Every body of
 * every call goes through here, so it builds no text unless a field is unreadable.
 */
function readAs(shape: Shape, value: unknown, operation: OperationName, path: Path): unknown {
  if (typeof shape === 'string') return LEAVES[shape](value) ? value : NOT;
  if ('list' in shape) {
    if (!Array.isArray(value) || value.length > shape.maxItems) return NOT;
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = readAs(shape.list, value[i], operation, path);
      path.pop();
      if (item === NOT) return NOT;
      items.push(item);
    }
    return items;
  }
  if (!isRecord(value)) return NOT;
  const read: Record<string, unknown> = {};
  for (const key in shape.fields) {
    const given = Object.hasOwn(value, key) ? value[key] : undefined;
    path.push(key);
    const result = given === undefined || given === null ? given : readAs(shape.fields[key]!, given, operation, path);
    if ((result === undefined || result === null || result === NOT || result === '') && shape.required?.includes(key)) {
      path.pop();
      return NOT;
    }
    if (result !== undefined) read[key] = result === NOT ? new UnreadableValue(operation, pathText(path)) : result;
    path.pop();
  }
  return read;
}

type Contract = typeof CONTRACT;
type Holds<T extends true> = T;
// Each row of the contract names a model of models.ts as its response (contract.ts imports nothing, so the check is here).
type _EveryResponseIsAModel = Holds<{ [O in OperationName]: Contract[O]['response']['model'] extends ModelName ? true : false }[OperationName]>;
/** What an operation's response is, read: its model (contract.ts `response`), or a list of it. */
export type ResponseOf<O extends OperationName> = Contract[O]['response'] extends { model: infer M extends ModelName; list: true }
  ? Model<M>[]
  : Contract[O]['response'] extends { model: infer M extends ModelName }
    ? Model<M>
    : never;

/** A body read as `shape`; null when it is not of it (a field of the wrong shape is an UnreadableValue in its place). */
export function readShape(operation: OperationName, shape: Shape, body: unknown): unknown {
  const read = readAs(shape, body, operation, []);
  return read === NOT ? null : read;
}

/** The shape of an operation's response, as the contract's `response` says: its model, or a list of it. */
export function responseShape(operation: OperationName): Shape {
  const response: (typeof CONTRACT)[OperationName]['response'] = CONTRACT[operation].response;
  const model = SHAPES[response.model];
  return 'list' in response ? { list: model, maxItems: response.maxItems } : model;
}

/** The response shapes, worked out once: readResponse runs for every upstream call. */
const RESPONSE_SHAPES = Object.fromEntries(Object.keys(CONTRACT).map((operation) => [operation, responseShape(operation as OperationName)])) as Record<
  OperationName,
  Shape
>;

/** An operation's response body read as the contract's `response` says; null when it is not one. */
export function readResponse<O extends OperationName>(operation: O, body: unknown): ResponseOf<O> | null {
  return readShape(operation, RESPONSE_SHAPES[operation], body) as ResponseOf<O> | null;
}
