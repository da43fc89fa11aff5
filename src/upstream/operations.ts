// The ten upstream calls bound to one request's scope: their arguments, bodies, and what each answer must hold.
import { expiredTokenError, missingTokenError } from '../errors.js';
import type { OperationName } from './contract.js';
import { toGraphQLError } from './failures.js';
import type { UpstreamCall, UpstreamHttp } from './http.js';
import type { RequestScope } from './scope.js';
import { epochToDateTime, toDecimal } from './values.js';
import type {
  Address,
  Estimate,
  Order,
  Payment,
  PickupCenter,
  TokenSet,
  TradeIn,
  User,
  VehicleDetails,
} from './models.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isAmount = (value: unknown): boolean => toDecimal(value) !== null;
const hasStrings = (value: unknown, ...keys: string[]): value is Json =>
  isObject(value) && keys.every((key) => isString(value[key]));
const arrayOf =
  <T>(item: (value: unknown) => boolean) =>
  (value: unknown): value is T[] =>
    Array.isArray(value) && value.every(item);

// What each body must hold for the contract's promise to be kept; anything more is ignored.
const isTokenSet = (v: unknown): v is TokenSet =>
  hasStrings(v, 'accessToken', 'refreshToken') && epochToDateTime(v.accessExpiration) !== null;
const isUser = (v: unknown): v is User => hasStrings(v, 'id');
/** An order record as the contract promises it; live snapshots read back from Redis pass the same check. */
export const isOrder = (v: unknown): v is Order => hasStrings(v, 'id', 'reservationId', 'status');
const isVehicle = (v: unknown): v is VehicleDetails => hasStrings(v, 'vin', 'model');
const isPickup = (v: unknown): v is PickupCenter => hasStrings(v, 'centerPlusLocationId', 'name');
const isEstimate = (v: unknown): v is Estimate =>
  hasStrings(v, 'currencyCode') && isAmount(v.total) && isAmount(v.amountDue);
const isPayment = (v: unknown): boolean =>
  hasStrings(v, 'id', 'feeType', 'currencyCode', 'status') && isAmount(v.amount);
const isTradeIn = (v: unknown): v is TradeIn => hasStrings(v, 'id', 'status');

/**
 * The ten upstream calls of `upstream/openapi.yaml`, bound to one request's caller. Hosts,
 * methods and paths come from the contract table; this is the only place that knows the
 * parameter values, the bodies and what each answer must hold. Protected calls refuse,
 * before any network traffic, a request without a bearer or with an expired one.
 */
export function createOperations(http: UpstreamHttp, scope: RequestScope) {
  const { auth } = scope;
  function bearer(): string {
    if (!auth.token) throw missingTokenError();
    if (auth.expired) throw expiredTokenError();
    return auth.token;
  }

  async function send<T>(operation: OperationName, call: UpstreamCall, accept: (body: unknown) => body is T, notFoundIsNull: boolean) {
    const result = await http.send(operation, call, scope);
    if (!result.ok) {
      if (notFoundIsNull && result.failure.kind === 'status' && result.failure.status === 404) return null;
      throw toGraphQLError(operation, result.failure);
    }
    let body: unknown;
    try {
      body = JSON.parse(result.body);
    } catch {
      throw toGraphQLError(operation, { kind: 'malformed', status: result.status });
    }
    if (!accept(body)) throw toGraphQLError(operation, { kind: 'malformed', status: result.status });
    return body;
  }
  const call = async <T>(operation: OperationName, args: UpstreamCall, accept: (body: unknown) => body is T): Promise<T> =>
    (await send(operation, args, accept, false)) as T;
  /** Nested lookups: a 404 means the thing does not exist (yet), which is data, not an error. */
  const lookup = <T>(operation: OperationName, params: Record<string, string>, accept: (body: unknown) => body is T) =>
    send(operation, { params, bearer: bearer() }, accept, true);

  return {
    login: (username: string, password: string) => call('login', { json: { username, password } }, isTokenSet),

    /** The caller's access token as bearer when it sent one (expired is fine here), else the refresh token. */
    refreshTokens: (refreshToken: string) =>
      call('refreshTokens', { json: { refresh_token: refreshToken }, bearer: auth.token ?? refreshToken }, isTokenSet),

    customerDetails: () => call('customerDetails', { bearer: bearer() }, isUser),

    orderDetails: () => call('orderDetails', { bearer: bearer() }, arrayOf<Order>(isOrder)),

    vehicleProductionDetails: (orderId: string, reservationId: string) =>
      lookup('vehicleProductionDetails', { order_id: orderId, reservation_id: reservationId }, isVehicle),

    nearestPickupCenter: (orderId: string) => lookup('nearestPickupCenter', { orderId }, isPickup),

    priceEstimate: (orderId: string) => lookup('priceEstimate', { orderID: orderId }, isEstimate),

    shippingAddresses: (orderId: string) => lookup('shippingAddresses', { order_id: orderId }, arrayOf<Address>(isObject)),

    orderPayments: (orderId: string, feeType: string) =>
      lookup('orderPayments', { order_id: orderId, fee_type: feeType }, arrayOf<Payment>(isPayment)),

    tradeInDetails: (reservationId: string) => lookup('tradeInDetails', { reservationId }, isTradeIn),
  };
}

export type Operations = ReturnType<typeof createOperations>;
