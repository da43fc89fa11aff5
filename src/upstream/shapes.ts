// The reading that holds every upstream body to its model's shape (models.ts) before anything
// else touches the body: the operations' checks, the resolvers, the order history and the live
// polls all get what this reading let through, never a body it has not checked. The shapes follow
// `upstream/openapi.yaml`, from which they are derived (src/tools/upstream-codegen.ts).
import { UpstreamFailedError } from '../errors.js';
import { CONTRACT, type OperationName } from './contract.js';
import { SHAPES, STRING_LENGTHS, type Leaf, type Model, type ModelName, type ObjectShape, type Shape, type StringKind } from './models.js';
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

/** Whether an object has a key its shape does not name (counted without building a list of its keys). */
function hasOthers(value: Record<string, unknown>, fields: ObjectShape['fields']): boolean {
  let known = 0;
  let all = 0;
  for (const key in value) {
    all += 1;
    if (Object.hasOwn(fields, key) && Object.hasOwn(value, key)) known += 1;
  }
  return all !== known;
}

/**
 * `value` read as `shape`, by the shape alone: a leaf's kind is checked before anything reads
 * it, an object field by field, a list item by item. So nothing deeper than the table is ever
 * walked, whatever the body nests. A field of the wrong shape becomes an UnreadableValue (as
 * JSON, an object that is of no field's shape, so it is unreadable again wherever it is read
 * back); a required one makes its object not one.
 *
 * The value is checked where it lies: `value` is the reader's own (a body it just parsed), so
 * an object or a list whose every key is the shape's is kept as it is, an UnreadableValue put
 * in place of a field of the wrong shape. An object with a key the shape does not name (a
 * `__proto__` key among them) is copied with the shape's fields alone, so what reaches a
 * resolver, a history or a poll's snapshot holds nothing the table does not. Every body of
 * every call goes through here, so it builds nothing unless a body does not fit.
 */
function readAs(shape: Shape, value: unknown, operation: OperationName, path: Path): unknown {
  if (typeof shape === 'string') return LEAVES[shape](value) ? value : NOT;
  if ('list' in shape) {
    if (!Array.isArray(value) || value.length > shape.maxItems) return NOT;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = readAs(shape.list, value[i], operation, path);
      path.pop();
      if (item === NOT) return NOT;
      if (item !== value[i]) value[i] = item;
    }
    return value;
  }
  if (!isRecord(value)) return NOT;
  const { fields, required } = shape;
  const read: Record<string, unknown> = hasOthers(value, fields) ? {} : value;
  for (const key in fields) {
    const given = Object.hasOwn(value, key) ? value[key] : undefined;
    if (given === undefined || given === null) {
      if (required?.includes(key)) return NOT;
      if (given === null && read !== value) read[key] = null;
      continue;
    }
    path.push(key);
    const result = readAs(fields[key]!, given, operation, path);
    if ((result === NOT || result === '') && required?.includes(key)) {
      path.pop();
      return NOT;
    }
    if (result === NOT) read[key] = new UnreadableValue(operation, pathText(path));
    else if (result !== given || read !== value) read[key] = result;
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

/**
 * A body read as `shape`; null when it is not of it (a field of the wrong shape is an
 * UnreadableValue in its place). The body must be the caller's own, parsed for this reading:
 * it is checked, and changed, where it lies.
 */
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

/** An operation's response body (the caller's own: readShape) read as the contract's `response` says; null when it is not one. */
export function readResponse<O extends OperationName>(operation: O, body: unknown): ResponseOf<O> | null {
  return readShape(operation, RESPONSE_SHAPES[operation], body) as ResponseOf<O> | null;
}
