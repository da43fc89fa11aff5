// The ten upstream calls bound to one request's scope: their arguments, bodies, and what each answer must hold.
import { expiredTokenError, missingTokenError } from '../errors.js';
import type { OperationName } from './contract.js';
import { isAbsence, toGraphQLError } from './failures.js';
import type { UpstreamCall, UpstreamHttp } from './http.js';
import type { CallScope } from './scope.js';
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
};

/**
 * What the answer of each per-order call (one with parameters taken from an order: the
 * contract's `params`) must be. Its parameters, their spelling and where each comes from are
 * the contract's.
 */
const PER_ORDER_ANSWERS = {
  vehicleProductionDetails: model(SHAPES.vehicle),
  nearestPickupCenter: model(SHAPES.pickup),
  priceEstimate: model(SHAPES.estimate),
  shippingAddresses: list(SHAPES.address),
  orderPayments: list(SHAPES.payment),
  tradeInDetails: model(SHAPES.tradeIn),
} satisfies Partial<Record<OperationName, Read<unknown>>>;

/** A call made for one order: its parameters come from the order (and the field's arguments). */
export type PerOrderOperation = keyof typeof PER_ORDER_ANSWERS;
export const PER_ORDER_CALLS = Object.keys(PER_ORDER_ANSWERS) as PerOrderOperation[];
/** What a per-order call answers, read as its model. */
export type PerOrderAnswer<O extends PerOrderOperation> = NonNullable<ReturnType<(typeof PER_ORDER_ANSWERS)[O]>>;

/**
 * The ten upstream calls of `upstream/openapi.yaml`, bound to one request's caller. Hosts,
 * methods, paths and parameters come from the contract table; this is the only place that
 * knows the bodies and what each answer must hold. Protected calls refuse,
 * before any network traffic, a request without a bearer or with an expired one.
 */
export function createOperations(http: UpstreamHttp, scope: CallScope) {
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

  return {
    login: (username: string, password: string) => call('login', { json: { username, password } }, READ.tokenSet),

    /** The caller's access token as bearer when it sent one (expired is fine here), else the refresh token. */
    refreshTokens: (refreshToken: string) =>
      call('refreshTokens', { json: { refresh_token: refreshToken }, bearer: auth.token ?? refreshToken }, READ.tokenSet),

    customerDetails: () => call('customerDetails', { bearer: bearer() }, READ.user),

    orderDetails: () => call('orderDetails', { bearer: bearer() }, READ.orders),

    /**
     * A per-order call with its parameters (`paramValues` in contract.ts): a 404, or a stage the
     * order has not reached, is data (null), not an error.
     */
    perOrder: <O extends PerOrderOperation>(operation: O, params: Record<string, string>): Promise<PerOrderAnswer<O> | null> =>
      send(operation, { params, bearer: bearer() }, PER_ORDER_ANSWERS[operation] as Read<PerOrderAnswer<O>>, true),
  };
}

export type Operations = ReturnType<typeof createOperations>;
