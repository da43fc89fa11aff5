// The upstream calls bound to one request's scope: their arguments and bodies; each response is
// read as the model the contract table says it is (shapes.ts).
import { expiredTokenError, missingTokenError } from '../errors.js';
import type { CustomerLevelOperation, OperationName, PerOrderOperation } from './contract.js';
import { isAbsence, toGraphQLError } from './failures.js';
import type { UpstreamCall, UpstreamHttp } from './http.js';
import type { CallScope } from './scope.js';
import { readResponse, type ResponseOf } from './shapes.js';

/** What a per-order call's response is, read as its model. */
export type PerOrderResponse<O extends PerOrderOperation> = ResponseOf<O>;

/**
 * The upstream calls of `upstream/openapi.yaml`, bound to one request's caller. Hosts,
 * methods, paths, parameters and the model of each response come from the contract table;
 * this is the only place that knows the request bodies. Protected calls refuse,
 * before any network traffic, a request without a bearer or with an expired one.
 */
export function createOperations(http: UpstreamHttp, scope: CallScope) {
  const { auth } = scope;
  function bearer(): string {
    if (!auth.token) throw missingTokenError();
    if (auth.expired) throw expiredTokenError();
    return auth.token;
  }

  /** The response's body read as the contract's model; a body that is not one is UPSTREAM_ERROR. */
  async function send<O extends OperationName>(operation: O, call: UpstreamCall, absentIsNull: boolean): Promise<ResponseOf<O> | null> {
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
    const model = readResponse(operation, body);
    if (model === null) throw toGraphQLError(operation, { kind: 'malformed', status: result.status });
    return model;
  }
  // Without absentIsNull, send answers the model or throws: never null.
  const call = <O extends OperationName>(operation: O, args: UpstreamCall) => send(operation, args, false) as Promise<ResponseOf<O>>;

  return {
    login: (username: string, password: string) => call('login', { json: { username, password } }),

    /** The caller's access token as bearer when it sent one (expired is fine here), else the refresh token. */
    refreshTokens: (refreshToken: string) =>
      call('refreshTokens', { json: { refresh_token: refreshToken }, bearer: auth.token ?? refreshToken }),

    customerDetails: () => call('customerDetails', { bearer: bearer() }),

    orderDetails: () => call('orderDetails', { bearer: bearer() }),

    /**
     * A call that backs GraphQL fields, per-order or customer-level, with its parameters
     * (`callParams` in contract.ts): a 404, or a stage the order has not reached, is data
     * (null), not an error.
     */
    fieldCall: <O extends PerOrderOperation | CustomerLevelOperation>(operation: O, params: Record<string, string>): Promise<ResponseOf<O> | null> =>
      send(operation, { params, bearer: bearer() }, true),
  };
}

export type Operations = ReturnType<typeof createOperations>;
