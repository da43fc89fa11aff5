/**
 * The upstream layer's table: the REST contract (`upstream/openapi.yaml`) as one table: for each of the ten
 * operations its operationId, host, method, path, query parameters, the bearer it takes
 * and the stage from which it answers. Everything that needs one of these facts (the
 * operations, the simulator's routes, the tests, the benchmark, the CLI) derives it from
 * here; `test/integration/contract.test.ts` checks the table against the YAML.
 */

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

/** Every order status the contract names: the stages and CANCELLED. Others may still appear. */
export const ORDER_STATUSES = [...ORDER_STAGES, 'CANCELLED'] as const;

interface OperationSpec {
  host: HostName;
  method: 'GET' | 'POST';
  /** The contract path; `{name}` is a path parameter. */
  path: string;
  /** Required query parameters, spelled as the contract spells them. */
  query?: readonly string[];
  /**
   * The bearer it takes: none (login), the caller's access token, or for refresh the
   * access token (expired is fine) or else the refresh token itself.
   */
  auth: 'none' | 'access' | 'refresh';
  /** `x-active-from`: earlier stages answer 409 ORDER_STAGE_NOT_ELIGIBLE. */
  activeFrom?: OrderStage;
}

export const CONTRACT = {
  login: { host: 'AUTH_URL', method: 'POST', path: '/auth/login', auth: 'none' },
  refreshTokens: { host: 'AUTH_URL', method: 'POST', path: '/auth/refresh', auth: 'refresh' },
  customerDetails: { host: 'AUTH_URL', method: 'GET', path: '/auth/me', auth: 'access' },
  vehicleProductionDetails: {
    host: 'APPOINTMENT_URL',
    method: 'GET',
    path: '/vehicle/getDetails',
    query: ['order_id', 'reservation_id'],
    auth: 'access',
    activeFrom: 'IN_PRODUCTION',
  },
  orderDetails: { host: 'ORDER_URL', method: 'GET', path: '/v2/order/user', auth: 'access' },
  nearestPickupCenter: {
    host: 'PRICE_CALCULATOR_URL',
    method: 'GET',
    path: '/pickup-scheduler/get-pickup-nearest-center-plus',
    query: ['orderId'],
    auth: 'access',
    activeFrom: 'IN_TRANSIT',
  },
  priceEstimate: {
    host: 'ORDER_URL',
    method: 'GET',
    path: '/order/estimate',
    query: ['orderID'],
    auth: 'access',
    activeFrom: 'ORDER_CONFIRMED',
  },
  shippingAddresses: { host: 'ORDER_URL', method: 'GET', path: '/order-address/findAll/{order_id}', auth: 'access' },
  orderPayments: {
    host: 'ORDER_URL',
    method: 'GET',
    path: '/order-payments',
    query: ['order_id', 'fee_type'],
    auth: 'access',
  },
  tradeInDetails: {
    host: 'TRADE_IN_URL',
    method: 'GET',
    path: '/partner-trade-in/trade-in-details',
    query: ['reservationId'],
    auth: 'access',
  },
} as const satisfies Record<string, OperationSpec>;

/** The contract's operationIds: the name every upstream-derived error carries. */
export type OperationName = keyof typeof CONTRACT;
export const OPERATION_NAMES = Object.keys(CONTRACT) as OperationName[];

/** The spec of one operation, widened to the table's row type. */
export const operationSpec = (operation: OperationName): OperationSpec => CONTRACT[operation];

/** Whether an order in this status is at the stage or past it: never when CANCELLED or unknown. */
export function hasReached(status: string, stage: OrderStage): boolean {
  return (ORDER_STAGES as readonly string[]).indexOf(status) >= ORDER_STAGES.indexOf(stage);
}

/** Whether an operation answers for an order in this status (its `x-active-from`). */
export function isActiveAt(operation: OperationName, status: string): boolean {
  const { activeFrom } = operationSpec(operation);
  return !activeFrom || hasReached(status, activeFrom);
}

/**
 * An operation's path with its parameters: path parameters percent-encoded into the
 * template, the rest as the query string in the contract's order.
 */
export function contractPath(operation: OperationName, params: Readonly<Record<string, string>> = {}): string {
  const spec = operationSpec(operation);
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  if (!spec.query) return path;
  return `${path}?${new URLSearchParams(spec.query.map((name): [string, string] => [name, params[name] ?? '']))}`;
}

/** The full URL of a call: the host's base (which may carry a path prefix) and the operation's path. */
export function operationUrl(urls: UpstreamUrls, operation: OperationName, params?: Readonly<Record<string, string>>): string {
  return urls[CONTRACT[operation].host].replace(/\/+$/, '') + contractPath(operation, params);
}
