/**
 * The upstream layer's table: the REST contract (`upstream/openapi.yaml`) as one table, one
 * declaration per operation: its operationId, host, method, path, parameters (and where a call
 * takes each from), the bearer it takes, the stage from which it answers, the model its
 * response is (models.ts), the GraphQL fields it backs and what the real service checks. The
 * rows are derived from the YAML and its `x-` extensions (src/tools/upstream-codegen.ts writes
 * them into __generated__/contract.ts); this file types them and works out what every reader
 * asks of them. Everything that needs one of these facts derives it from here: the
 * operations and their reading of each response, the loaders, the Order resolvers and
 * `Order.availability` (graph/order-fields.ts), the simulator's routes, parameter checks and
 * answers, the call counts of the tests, the budget's default and the benchmark, the trace
 * names. `test/integration/contract.test.ts` checks the generated file is current and what the
 * generator refuses; docs/adding-an-upstream-operation.md walks through adding an operation.
 *
 * It is the lowest layer, and the Order fields are declared here rather than in the graph
 * layer, because every reader of the declaration may import this file and none may import the
 * graph: the upstream operations, the simulator, the tests, the benchmark and the SDK (which
 * reads `Order.availability`'s stages through graph/order-fields.ts). So this file imports
 * only the generated data, not even the models' names (shapes.ts holds each row's `response`
 * to a model of models.ts): the SDK that reads it carries no gateway code.
 */
import { OPERATIONS } from './__generated__/contract.js';

/** The five upstream bases, named as in the contract's `x-base`, in that order. */
export const HOSTS = ['AUTH_URL', 'APPOINTMENT_URL', 'ORDER_URL', 'PRICE_CALCULATOR_URL', 'TRADE_IN_URL'] as const;
export type HostName = (typeof HOSTS)[number];
/** A base URL per host; a base may carry a path prefix, the contract path is appended to it. */
export type UpstreamUrls = Record<HostName, string>;

/** The order stages in the order they happen; CANCELLED (and any unknown status) is outside it. */
export const ORDER_STAGES = [
  'RESERVED',
  'ORDER_PENDING_PAYMENT',
  'ORDER_CONFIRMED',
  'BUILD_LOCKED',
  'IN_PRODUCTION',
  'IN_TRANSIT',
  'READY_FOR_PICKUP',
  'DELIVERED',
] as const;
export type OrderStage = (typeof ORDER_STAGES)[number];

/** Each stage, and CANCELLED, as a sentence says it: the CLI's summary and the notifications' titles ("Order RN123: in production"). */
export const STAGE_WORDS: Readonly<Record<OrderStage | 'CANCELLED', string>> = {
  RESERVED: 'reserved',
  ORDER_PENDING_PAYMENT: 'order placed, payment pending',
  ORDER_CONFIRMED: 'order confirmed',
  BUILD_LOCKED: 'build locked',
  IN_PRODUCTION: 'in production',
  IN_TRANSIT: 'in transit',
  READY_FOR_PICKUP: 'ready for pickup',
  DELIVERED: 'delivered',
  CANCELLED: 'cancelled',
};

/** A status in words; null for one the list does not know (an upstream's text is never a key of it: `constructor` is not a stage). */
export const stageWords = (status: string): string | null =>
  Object.hasOwn(STAGE_WORDS, status) ? STAGE_WORDS[status as keyof typeof STAGE_WORDS] : null;

/** Every order status the contract names: the stages and CANCELLED. Others may still appear. */
export const ORDER_STATUSES = [...ORDER_STAGES, 'CANCELLED'] as const;

/** The fields of the upstream order record a per-order call may name it by. */
export type OrderKey = 'id' | 'reservationId';

/**
 * Where a per-order call takes one parameter from: a field of the order (from the caller's own
 * order list, never from the client; `x-from`), or an argument of the GraphQL field the call
 * backs, with the values the contract allows it when it lists them (its `enum`; others answer
 * 400). `required` as the contract says: an optional one is left out of a call that has no value
 * for it, never sent empty.
 */
export type ParamSource = { order: OrderKey; required: true } | { argument: string; required: boolean; enum?: readonly string[] };

export interface OperationSpec {
  host: HostName;
  method: 'GET' | 'POST';
  /** The contract path; `{name}` is a path parameter. */
  path: string;
  /**
   * Its parameters, path and query alike, spelled as the contract spells them and in its
   * order, each with where a call takes it from. Those not in the path are the query's.
   */
  params?: Readonly<Record<string, ParamSource>>;
  /**
   * The bearer it takes: none (login), the caller's access token, or for refresh the
   * access token (expired is fine) or else the refresh token itself.
   */
  auth: 'none' | 'access' | 'refresh';
  /** `x-active-from`: earlier stages answer 409 ORDER_STAGE_NOT_ELIGIBLE. */
  activeFrom?: OrderStage;
  /**
   * What its 200 carries: one of the models (SHAPES in models.ts, by name), or a list of at most
   * `maxItems` of them (a longer list is the call's UPSTREAM_ERROR: nothing the upstream sends is
   * copied at any length).
   */
  response: { model: string; list?: never } | { model: string; list: true; maxItems: number };
  /**
   * A per-order call's Order fields (`x-graph: [Order.…]`): the fields its response backs (each
   * given this operation's loader), in the order `Order.availability` lists the stage-bound ones.
   */
  orderFields?: readonly string[];
  /** A customer-level call's Customer fields (`x-graph: [Customer.…]`), likewise. */
  customerFields?: readonly string[];
  /** Whether the service refuses (403) an order that is not the caller's (a 403 response); the gateway only ever names the caller's own. */
  checksOwner?: true;
  /** How the service's 409 starts (`… not available for order status X`; `x-stage-refusal`); by default `<operationId> is`. */
  stageRefusal?: string;
}

/**
 * The table, derived from the YAML (src/tools/upstream-codegen.ts writes it; `npm run codegen`).
 * `satisfies` holds every row to the spec above: a host, a stage, an order field each one this
 * file names.
 */
export const CONTRACT = OPERATIONS satisfies Record<string, OperationSpec>;

/** The contract's operationIds: the name every upstream-derived error carries. */
export type OperationName = keyof typeof CONTRACT;
export const OPERATION_NAMES = Object.keys(CONTRACT) as OperationName[];

/** The spec of one operation, widened to the table's row type. */
export const operationSpec = (operation: OperationName): OperationSpec => CONTRACT[operation];

/** Whether an order in this status is at the stage or past it: never when CANCELLED or unknown. */
export function hasReached(status: string, stage: OrderStage): boolean {
  return (ORDER_STAGES as readonly string[]).indexOf(status) >= ORDER_STAGES.indexOf(stage);
}

/**
 * Whether a part that comes at `stage` can have a value for an order in this status
 * (`PartAvailability.available`): the stage is reached, or the status is one the contract
 * does not name, which only the service can place (the part's call is made at every status,
 * and the service may answer it). Never when CANCELLED or before the stage.
 */
export function canHaveValue(status: string, stage: OrderStage): boolean {
  return !(ORDER_STATUSES as readonly string[]).includes(status) || hasReached(status, stage);
}

/** Whether an operation answers for an order in this status (its `x-active-from`). */
export function isActiveAt(operation: OperationName, status: string): boolean {
  const { activeFrom } = operationSpec(operation);
  return !activeFrom || hasReached(status, activeFrom);
}

/** A call made for one order: one that backs Order fields (its parameters come from the order, and the field's arguments). */
export type PerOrderOperation = {
  [O in OperationName]: (typeof CONTRACT)[O] extends { orderFields: readonly string[] } ? O : never;
}[OperationName];
/** The per-order calls, in the table's order. */
export const PER_ORDER_OPERATIONS = OPERATION_NAMES.filter((operation): operation is PerOrderOperation => 'orderFields' in CONTRACT[operation]);

/** A customer-level call: one that backs Customer fields (`x-graph: [Customer.…]`), made once per request for the caller. */
export type CustomerLevelOperation = {
  [O in OperationName]: (typeof CONTRACT)[O] extends { customerFields: readonly string[] } ? O : never;
}[OperationName];
/** The customer-level calls, in the table's order. */
export const CUSTOMER_LEVEL_OPERATIONS = OPERATION_NAMES.filter(
  (operation): operation is CustomerLevelOperation => 'customerFields' in CONTRACT[operation],
);

/** Whether a call's parameters come from an order (contract.test.ts holds these to be the per-order calls). */
export const isPerOrder = (operation: OperationName): boolean =>
  Object.values(operationSpec(operation).params ?? {}).some((source) => 'order' in source);

/** Each operation's parameters with where each comes from, in the contract's order, listed once. */
const PARAMS: ReadonlyMap<OperationName, readonly (readonly [string, ParamSource])[]> = new Map(
  OPERATION_NAMES.map((operation) => [operation, Object.entries(operationSpec(operation).params ?? {})]),
);

/** A parameter's value put in `values`: an optional one without a value is left out, a required one sent empty. */
function putParam(values: Record<string, string>, name: string, source: ParamSource, value: string | undefined): void {
  if (value !== undefined) values[name] = value;
  else if (source.required) values[name] = '';
}

/**
 * A call's parameter values for the GraphQL field it backs: each from the order (a per-order
 * call's, never from the client) or from the field's argument (an optional one not given is
 * left out). A call that takes a parameter from an order cannot back a field without one.
 * Runs for every field call: no closure, no list of entries built for it.
 */
export function callParams(
  operation: OperationName,
  order: Readonly<Record<OrderKey, string>> | null,
  args: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, source] of PARAMS.get(operation)!) {
    if ('order' in source) {
      if (!order) throw new Error(`${operation} takes a parameter from an order, and backs a field that has none`);
      putParam(values, name, source, order[source.order]);
    } else {
      const value = args[source.argument];
      putParam(values, name, source, value === undefined || value === null ? undefined : String(value));
    }
  }
  return values;
}

/** An operation's parameters, path and query, in the contract's order. */
export const paramNames = (operation: OperationName): string[] => Object.keys(operationSpec(operation).params ?? {});

/** The parameters in its path (`{name}`), in their order. */
export const pathParamNames = (operation: OperationName): string[] => [...operationSpec(operation).path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

/** The parameters of its query string, in the contract's order. */
export const queryParamNames = (operation: OperationName): string[] => {
  const inPath = pathParamNames(operation);
  return paramNames(operation).filter((name) => !inPath.includes(name));
};

/**
 * A call's parameter values, each taken from where the contract says it comes from; an
 * optional one `valueOf` has no value for (undefined) is left out.
 */
export function paramValues(operation: OperationName, valueOf: (source: ParamSource) => string | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, source] of PARAMS.get(operation)!) putParam(values, name, source, valueOf(source));
  return values;
}

// Values that encodeURIComponent, and a form-encoded query (URLSearchParams), leave as they are:
// an id, a code, an enum value. Such a value goes into the path as it is, nothing built for it.
const PATH_SAFE = /^[\w.!~*'()-]*$/;
const QUERY_SAFE = /^[\w.*-]*$/;
const pathValue = (value: string) => (PATH_SAFE.test(value) ? value : encodeURIComponent(value));
const queryValue = (value: string) => (QUERY_SAFE.test(value) ? value : new URLSearchParams([['', value]]).toString().slice(1));

/**
 * How a row's path is written with its parameters, worked out once per row: path parameters
 * percent-encoded into the template, the rest as the query string in the contract's order
 * (form-encoded, as URLSearchParams writes it). A required one without a value is sent empty
 * (the service refuses it); an optional one without a value (or an empty one) is left out. An
 * operation without parameters has its template as it is. A call builds its path and nothing
 * else: the template's pieces and the query's names are split once, here.
 */
export function pathWriter({ path: template, params }: Pick<OperationSpec, 'path' | 'params'>): (values: Readonly<Record<string, string>>) => string {
  if (!params) return () => template;
  // Text, then a parameter's name, then text, …: the names at the odd places.
  const pieces = template.split(/\{(\w+)\}/);
  const query = Object.entries(params)
    .filter(([name]) => !template.includes(`{${name}}`))
    .map(([name, { required }]) => ({ name, required, key: queryValue(name) }));
  return (values) => {
    let path = pieces[0]!;
    for (let i = 1; i < pieces.length; i += 2) path += pathValue(values[pieces[i]!] ?? '') + pieces[i + 1]!;
    let separator = '?';
    for (let i = 0; i < query.length; i++) {
      const { name, required, key } = query[i]!;
      const value = values[name] ?? '';
      if (!required && value === '') continue;
      path += `${separator}${key}=${queryValue(value)}`;
      separator = '&';
    }
    return path;
  };
}

/** Each operation's pathWriter: contractPath runs for every upstream call. */
const CALL_PATHS = Object.fromEntries(OPERATION_NAMES.map((operation) => [operation, pathWriter(operationSpec(operation))])) as Record<
  OperationName,
  ReturnType<typeof pathWriter>
>;

/** An operation's path with its parameters (pathWriter). */
export function contractPath(operation: OperationName, params: Readonly<Record<string, string>> = {}): string {
  return CALL_PATHS[operation](params);
}

/** The full URL of a call: the host's base (which may carry a path prefix) and the operation's path. */
export function operationUrl(urls: UpstreamUrls, operation: OperationName, params?: Readonly<Record<string, string>>): string {
  return urls[CONTRACT[operation].host].replace(/\/+$/, '') + contractPath(operation, params);
}
