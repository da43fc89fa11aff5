/**
 * Tailcall 1.0 (a GraphQL server written in Rust, configured by directives on its schema) as a
 * peer of the benchmark: its configuration, the whole-order query over its schema, and what its
 * answer shares with the gateway's.
 *
 * Its schema is the upstream's JSON as the gateway's models read it (src/upstream/shapes.ts):
 * a type per model, the customer calls at its root, each per-order call a field of the order
 * with the contract's URL and parameters (bench/declarations.ts), so its calls are the
 * gateway's and none is written here by hand. Every call forwards the caller's Authorization
 * header (`@upstream(allowedHeaders)`); nothing is cached (no `@cache`, no `httpCache`) and no
 * call is shared between requests (`@http(dedupe)` is off, its default). Its query asks for
 * every field of every model: it has no mapping of its own, so it answers the upstream's
 * names and values as they came.
 *
 * The binary is bench/peers/tailcall's optional dependency (`npm ci` there: Linux x64 with
 * glibc only; 1.0.0 because newer builds need a newer glibc than Debian 12's).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildASTSchema, GraphQLObjectType, parse } from 'graphql';
import { loadTypeDefs } from '../src/graph/sdl.js';
import { type OperationName, type ParamSource, type UpstreamUrls } from '../src/upstream/contract.js';
import { SHAPES, type Leaf, type ModelName, type ObjectShape, type Shape } from '../src/upstream/models.js';
import { responseShape } from '../src/upstream/shapes.js';
import { callArguments, callOf, callTemplate, CUSTOMER_CALLS, PER_ORDER_CALLS, PER_ORDER_FIELDS } from './declarations.js';

/** The peer's own package (bench/peers/tailcall), which `npm run bench` installs. */
export const TAILCALL_DIR = fileURLToPath(new URL('peers/tailcall/', import.meta.url));

/** The binary npm put there; none on a platform the package is not for (npm skips an optional dependency). */
export function tailcallBinary(): string | undefined {
  const path = `${TAILCALL_DIR}node_modules/@tailcallhq/core-linux-x64-gnu/bin/tailcall`;
  return existsSync(path) ? path : undefined;
}

/** Its address from the line it logs once listening (`🚀 Tailcall launched at [127.0.0.1:8000] over HTTP/1.1`). */
export const tailcallListening = (line: string) => {
  const address = /Tailcall launched at \[([^\]\s]+)\]/.exec(line)?.[1];
  return address && `http://${address}/graphql`;
};

/**
 * What the Tailcall process gets besides the config: no usage reports (it sends them to
 * Google Analytics and PostHog unless told not to), and a cache folder of its own, where its
 * release check only notes the time (it asks GitHub a day later, never within a run).
 */
export const tailcallEnv = (dir: string) => ({ TAILCALL_TRACKER: 'false', XDG_CACHE_HOME: `${dir}/cache`, TAILCALL_LOG_LEVEL: 'info' });

// ---------------------------------------------------------------------------------------
// The schema, written from the shapes of the answers

const SCALARS: Record<Leaf, string> = {
  id: 'String',
  code: 'String',
  text: 'String',
  token: 'String',
  currency: 'String',
  int: 'Int',
  number: 'Float',
  flag: 'Boolean',
  amount: 'JSON',
  epoch: 'Int',
  dateTime: 'String',
};
const capital = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}`;
const shapeOf = (name: ModelName): ObjectShape => SHAPES[name];
/** The order record: the type the per-order calls are fields of. */
const ORDER = shapeOf('Order');

/** A parameter in Tailcall's templates: a field of the order (its `value`), or an argument of the field. */
const mustache = (source: ParamSource) => ('order' in source ? `{{.value.${source.order}}}` : `{{.args.${source.argument}}}`);
const literal = (text: string) => JSON.stringify(text);

/** A call's `@http`: the host's base URL and the contract's path and query, each parameter a template (an optional one skipped when empty). */
function http(urls: UpstreamUrls, operation: OperationName, valueOf: (source: ParamSource) => string): string {
  const { host, method, path, query } = callTemplate(operation, valueOf);
  if (method !== 'GET') throw new Error(`${operation}: only GET calls are part of a whole order`);
  const url = literal(`${urls[host].replace(/\/+$/, '')}${path}`);
  const params = query.map(
    ({ key, value, required }) => `{ key: ${literal(key)}, value: ${literal(value)}${required ? '' : ', skipEmpty: true'} }`,
  );
  return params.length === 0 ? `@http(url: ${url})` : `@http(url: ${url}, query: [${params.join(', ')}])`;
}

/** The types of the shapes, each named once: a model by its name, a nested object by its place. */
class TypeWriter {
  readonly blocks: string[] = [];
  private readonly names = new Map<ObjectShape, string>();
  private readonly written = new Set<ObjectShape>();
  private readonly more = new Map<ObjectShape, () => string[]>();

  constructor() {
    for (const name of Object.keys(SHAPES) as (keyof typeof SHAPES)[]) this.names.set(shapeOf(name), capital(name));
  }

  /** Fields a type has beyond its shape's, written with it. */
  addFields(shape: ObjectShape, fields: () => string[]) {
    this.more.set(shape, fields);
  }

  typeOf(shape: Shape, place: string, required = false): string {
    const type =
      typeof shape === 'string' ? SCALARS[shape] : 'list' in shape ? `[${this.typeOf(shape.list, place)}]` : this.object(shape, place);
    return required ? `${type}!` : type;
  }

  private object(shape: ObjectShape, place: string): string {
    const name = this.names.get(shape) ?? place;
    this.names.set(shape, name);
    if (this.written.has(shape)) return name;
    this.written.add(shape);
    // A field the model cannot be without is non-null: Tailcall takes only those into a URL.
    const fields = Object.entries(shape.fields).map(
      ([field, inner]) => `  ${field}: ${this.typeOf(inner, `${name}${capital(field)}`, shape.required?.includes(field))}`,
    );
    this.blocks.push(`type ${name} {\n${[...fields, ...(this.more.get(shape)?.() ?? [])].join('\n')}\n}`);
    return name;
  }
}

/** Tailcall's configuration for the simulator's URLs: its schema, listening on 127.0.0.1:`port`. */
export function tailcallConfig(urls: UpstreamUrls, port: number): string {
  const writer = new TypeWriter();
  writer.addFields(ORDER, () =>
    PER_ORDER_CALLS.map((operation) => {
      const args = callArguments(operation).map(({ name, required }) => `${name}: String${required ? '!' : ''}`);
      const type = writer.typeOf(responseShape(operation), capital(operation));
      return `  ${operation}${args.length ? `(${args.join(', ')})` : ''}: ${type} ${http(urls, operation, mustache)}`;
    }),
  );
  const root = CUSTOMER_CALLS.map((operation) => {
    const type = writer.typeOf(responseShape(operation), capital(operation));
    return `  ${operation}: ${type} ${http(urls, operation, (source) => {
      throw new Error(`${operation} takes ${JSON.stringify(source)}: a customer call has nothing to take it from`);
    })}`;
  });
  return [
    `schema @server(hostname: "127.0.0.1", port: ${port}) @upstream(allowedHeaders: ["authorization"]) {\n  query: Query\n}`,
    `type Query {\n${root.join('\n')}\n}`,
    ...writer.blocks,
    '',
  ].join('\n\n');
}

// ---------------------------------------------------------------------------------------
// The query

/**
 * A call's arguments in the whole-order query: those of the gateway's field it backs, at
 * their SDL defaults (the WholeOrder document passes none); an optional one without a default
 * is left out, as the gateway leaves its parameter out.
 */
function wholeOrderArguments(operation: OperationName): string {
  const args = callArguments(operation);
  if (args.length === 0) return '';
  const field = PER_ORDER_FIELDS.find(([, call]) => call === operation)?.[0];
  const order = buildASTSchema(parse(loadTypeDefs().join('\n'))).getType('Order');
  const values = args.flatMap(({ name, required }) => {
    const value =
      order instanceof GraphQLObjectType && field
        ? order.getFields()[field]?.args.find((arg) => arg.name === name)?.defaultValue
        : undefined;
    if (value === undefined && !required) return [];
    if (typeof value !== 'string') throw new Error(`Order.${field}(${name}) has no default in the SDL`);
    return [`${name}: ${literal(value)}`];
  });
  if (values.length === 0) return '';
  return `(${values.join(', ')})`;
}

function selection(shape: Shape): string {
  if (typeof shape === 'string') return '';
  if ('list' in shape) return selection(shape.list);
  const fields = Object.entries(shape.fields).map(([field, inner]) => `${field}${selection(inner)}`);
  const calls =
    shape === ORDER ? PER_ORDER_CALLS.map((call) => `${call}${wholeOrderArguments(call)}${selection(responseShape(call))}`) : [];
  return ` { ${[...fields, ...calls].join(' ')} }`;
}

/** The whole order over Tailcall's schema: every customer call, every per-order call of every order, every field. */
export const tailcallQuery = () =>
  `query WholeOrder {${CUSTOMER_CALLS.map((call) => ` ${call}${selection(responseShape(call))}`).join('')} }`;

// ---------------------------------------------------------------------------------------
// What the answers share

const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (inner, key) => (typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>)[key] : undefined),
    value,
  );
const items = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const ids = (value: unknown) => items(value).map((item) => at(item, 'id'));

/**
 * What a whole order answered in the gateway's schema and one in the upstream's names (Tailcall's,
 * the optimum's) can be compared on: the ids, the order's status as the upstream sent it, the
 * VIN, the pickup centre, the estimate's total as a number, the addresses, payments and trade-in.
 */
export function gatewayComparable(data: unknown) {
  const me = at(data, 'me');
  return {
    customer: { id: at(me, 'id'), email: at(me, 'email') },
    orders: items(at(me, 'orders')).map((order) => ({
      id: at(order, 'id'),
      reservationId: at(order, 'reservationId'),
      status: at(order, 'rawStatus'),
      vin: at(order, 'vehicle', 'vin'),
      pickupCenter: at(order, 'pickup', 'locationId'),
      total: Number(at(order, 'estimate', 'total', 'amount')),
      addresses: ids(at(order, 'addresses')),
      payments: ids(at(order, 'payments')),
      tradeIn: at(order, 'tradeIn', 'id'),
    })),
  };
}

/** The same of a whole order in the upstream's names: the customer, and the orders with each per-order call's answer under its operation. */
export function upstreamComparable(customer: unknown, orders: unknown): ReturnType<typeof gatewayComparable> {
  return {
    customer: { id: at(customer, 'id'), email: at(customer, 'email') },
    orders: items(orders).map((order) => ({
      id: at(order, 'id'),
      reservationId: at(order, 'reservationId'),
      status: at(order, 'status'),
      vin: at(order, callOf('vehicle'), 'vin'),
      pickupCenter: at(order, callOf('pickup'), 'centerPlusLocationId'),
      total: Number(at(order, callOf('estimate'), 'total')),
      addresses: ids(at(order, callOf('addresses'))),
      payments: ids(at(order, callOf('payments'))),
      tradeIn: at(order, callOf('tradeIn'), 'id'),
    })),
  };
}
