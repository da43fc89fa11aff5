// The ten upstream calls bound to one request's scope: their arguments, bodies, and what each answer must hold.
import { expiredTokenError, missingTokenError } from '../errors.js';
import type { OperationName } from './contract.js';
import { isAbsence, toGraphQLError } from './failures.js';
import type { UpstreamCall, UpstreamHttp } from './http.js';
import type { RequestScope } from './scope.js';
import { readList, readModel, SHAPES, type ObjectShape } from './shapes.js';

/** How an answer's body is read: as its model (shapes.ts), null when it is not one. */
type Read<T> = (operation: OperationName, body: unknown) => T | null;
const model =
  <T>(shape: ObjectShape<T>): Read<T> =>
  (operation, body) =>
    readModel(operation, shape, body);
const list =
  <T>(shape: ObjectShape<T>): Read<T[]> =>
  (operation, body) =>
    readList(operation, shape, body);
// What each answer must be; anything more in it is left behind.
const READ = {
  tokenSet: model(SHAPES.tokenSet),
  user: model(SHAPES.user),
  orders: list(SHAPES.order),
  vehicle: model(SHAPES.vehicle),
  pickup: model(SHAPES.pickup),
  estimate: model(SHAPES.estimate),
  addresses: list(SHAPES.address),
  payments: list(SHAPES.payment),
  tradeIn: model(SHAPES.tradeIn),
};

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

  /** The answer's body read as the contract's model (`read`); a body that is not one is UPSTREAM_ERROR. */
  async function send<T>(operation: OperationName, call: UpstreamCall, read: Read<T>, absentIsNull: boolean): Promise<T | null> {
    const result = await http.send(operation, call, scope);
    if (!result.ok) {
      if (absentIsNull && isAbsence(operation, result.failure)) return null;
      throw toGraphQLError(operation, result.failure);
    }
    let body: unknown;
    try {
      body = JSON.parse(result.body);
    } catch {
      throw toGraphQLError(operation, { kind: 'malformed', status: result.status });
    }
    const model = read(operation, body);
    if (model === null) throw toGraphQLError(operation, { kind: 'malformed', status: result.status });
    return model;
  }
  const call = async <T>(operation: OperationName, args: UpstreamCall, read: Read<T>): Promise<T> =>
    (await send(operation, args, read, false))!;
  /** Nested lookups: a 404, or a stage the order has not reached, is data (null), not an error. */
  const lookup = <T>(operation: OperationName, params: Record<string, string>, read: Read<T>) =>
    send(operation, { params, bearer: bearer() }, read, true);

  return {
    login: (username: string, password: string) => call('login', { json: { username, password } }, READ.tokenSet),

    /** The caller's access token as bearer when it sent one (expired is fine here), else the refresh token. */
    refreshTokens: (refreshToken: string) =>
      call('refreshTokens', { json: { refresh_token: refreshToken }, bearer: auth.token ?? refreshToken }, READ.tokenSet),

    customerDetails: () => call('customerDetails', { bearer: bearer() }, READ.user),

    orderDetails: () => call('orderDetails', { bearer: bearer() }, READ.orders),

    vehicleProductionDetails: (orderId: string, reservationId: string) =>
      lookup('vehicleProductionDetails', { order_id: orderId, reservation_id: reservationId }, READ.vehicle),

    nearestPickupCenter: (orderId: string) => lookup('nearestPickupCenter', { orderId }, READ.pickup),

    priceEstimate: (orderId: string) => lookup('priceEstimate', { orderID: orderId }, READ.estimate),

    shippingAddresses: (orderId: string) => lookup('shippingAddresses', { order_id: orderId }, READ.addresses),

    orderPayments: (orderId: string, feeType: string) =>
      lookup('orderPayments', { order_id: orderId, fee_type: feeType }, READ.payments),

    tradeInDetails: (reservationId: string) => lookup('tradeInDetails', { reservationId }, READ.tradeIn),
  };
}

export type Operations = ReturnType<typeof createOperations>;
