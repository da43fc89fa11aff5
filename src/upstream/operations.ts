import type { Auth } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { expiredTokenError, missingTokenError, toGraphQLError } from '../errors.js';
import type { UpstreamUrlName } from '../config.js';
import type { UpstreamHttp, UpstreamRequest } from './http.js';
import { epochToDateTime, toDecimal } from './values.js';
import type {
  Address,
  Estimate,
  OperationName,
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
const isOrder = (v: unknown): v is Order => hasStrings(v, 'id', 'reservationId', 'status');
const isVehicle = (v: unknown): v is VehicleDetails => hasStrings(v, 'vin', 'model');
const isPickup = (v: unknown): v is PickupCenter => hasStrings(v, 'centerPlusLocationId', 'name');
const isEstimate = (v: unknown): v is Estimate =>
  hasStrings(v, 'currencyCode') && isAmount(v.total) && isAmount(v.amountDue);
const isPayment = (v: unknown): boolean =>
  hasStrings(v, 'id', 'feeType', 'currencyCode', 'status') && isAmount(v.amount);
const isTradeIn = (v: unknown): v is TradeIn => hasStrings(v, 'id', 'status');

interface CallSpec<T> {
  operation: OperationName;
  base: UpstreamUrlName;
  request: UpstreamRequest;
  accept: (body: unknown) => body is T;
}

/**
 * The ten upstream calls of `upstream/openapi.yaml`, bound to one request's caller:
 * the only place that knows paths, parameter spellings, hosts and auth. Protected calls
 * refuse, before any network traffic, a request without a bearer or with an expired one.
 */
export function createOperations(http: UpstreamHttp, auth: Auth, request: RequestInfo) {
  function bearer(): string {
    if (!auth.token) throw missingTokenError();
    if (auth.expired) throw expiredTokenError();
    return auth.token;
  }

  async function send<T>(spec: CallSpec<T>, notFoundIsNull: boolean): Promise<T | null> {
    request.upstreamCalls += 1;
    const result = await http.send(spec.base, spec.request, {
      operation: spec.operation,
      requestId: request.id,
      acceptLanguage: request.acceptLanguage,
      deadline: request.deadline,
    });
    if (!result.ok) {
      if (notFoundIsNull && result.failure.kind === 'status' && result.failure.status === 404) return null;
      throw toGraphQLError(spec.operation, result.failure);
    }
    let body: unknown;
    try {
      body = JSON.parse(result.body);
    } catch {
      throw toGraphQLError(spec.operation, { kind: 'malformed', status: result.status });
    }
    if (!spec.accept(body)) throw toGraphQLError(spec.operation, { kind: 'malformed', status: result.status });
    return body;
  }
  const call = async <T>(spec: CallSpec<T>): Promise<T> => (await send(spec, false)) as T;
  /** Nested lookups: a 404 means the thing does not exist (yet), which is data, not an error. */
  const lookup = <T>(spec: CallSpec<T>): Promise<T | null> => send(spec, true);

  return {
    login: (username: string, password: string) =>
      call({
        operation: 'login',
        base: 'AUTH_URL',
        request: { method: 'POST', path: '/auth/login', json: { username, password } },
        accept: isTokenSet,
      }),

    /** The caller's access token as bearer when it sent one (expired is fine here), else the refresh token. */
    refreshTokens: (refreshToken: string) =>
      call({
        operation: 'refreshTokens',
        base: 'AUTH_URL',
        request: {
          method: 'POST',
          path: '/auth/refresh',
          json: { refresh_token: refreshToken },
          bearer: auth.token ?? refreshToken,
        },
        accept: isTokenSet,
      }),

    customerDetails: () =>
      call({
        operation: 'customerDetails',
        base: 'AUTH_URL',
        request: { method: 'GET', path: '/auth/me', bearer: bearer() },
        accept: isUser,
      }),

    orderDetails: () =>
      call({
        operation: 'orderDetails',
        base: 'ORDER_URL',
        request: { method: 'GET', path: '/v2/order/user', bearer: bearer() },
        accept: arrayOf<Order>(isOrder),
      }),

    vehicleProductionDetails: (orderId: string, reservationId: string) =>
      lookup({
        operation: 'vehicleProductionDetails',
        base: 'APPOINTMENT_URL',
        request: {
          method: 'GET',
          path: '/vehicle/getDetails',
          searchParams: { order_id: orderId, reservation_id: reservationId },
          bearer: bearer(),
        },
        accept: isVehicle,
      }),

    nearestPickupCenter: (orderId: string) =>
      lookup({
        operation: 'nearestPickupCenter',
        base: 'PRICE_CALCULATOR_URL',
        request: {
          method: 'GET',
          path: '/pickup-scheduler/get-pickup-nearest-center-plus',
          searchParams: { orderId },
          bearer: bearer(),
        },
        accept: isPickup,
      }),

    priceEstimate: (orderId: string) =>
      lookup({
        operation: 'priceEstimate',
        base: 'ORDER_URL',
        request: { method: 'GET', path: '/order/estimate', searchParams: { orderID: orderId }, bearer: bearer() },
        accept: isEstimate,
      }),

    shippingAddresses: (orderId: string) =>
      lookup({
        operation: 'shippingAddresses',
        base: 'ORDER_URL',
        request: { method: 'GET', path: `/order-address/findAll/${encodeURIComponent(orderId)}`, bearer: bearer() },
        accept: arrayOf<Address>(isObject),
      }),

    orderPayments: (orderId: string, feeType: string) =>
      lookup({
        operation: 'orderPayments',
        base: 'ORDER_URL',
        request: {
          method: 'GET',
          path: '/order-payments',
          searchParams: { order_id: orderId, fee_type: feeType },
          bearer: bearer(),
        },
        accept: arrayOf<Payment>(isPayment),
      }),

    tradeInDetails: (reservationId: string) =>
      lookup({
        operation: 'tradeInDetails',
        base: 'TRADE_IN_URL',
        request: {
          method: 'GET',
          path: '/partner-trade-in/trade-in-details',
          searchParams: { reservationId },
          bearer: bearer(),
        },
        accept: isTradeIn,
      }),
  };
}

export type Operations = ReturnType<typeof createOperations>;
