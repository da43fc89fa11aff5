/**
 * The REST side of the Apollo peer: a `RESTDataSource` per upstream host, as Apollo's
 * "Fetching from REST" page teaches. They are made per request (in the server's `context`)
 * with the caller's `Authorization` header and the server's cache, so each keeps its
 * in-flight GET deduplication to one GraphQL request. Each call's path and parameters are the
 * contract's (src/upstream/contract.ts); the JSON types are the project's models.
 */
import { RESTDataSource, type AugmentedRequest, type DataSourceConfig } from '@apollo/datasource-rest';
import { GraphQLError } from 'graphql';
import { CONTRACT, contractPath, type OperationName } from '../../../src/upstream/contract.js';

// The upstream's JSON as the project's models type it, for the resolvers.
export type {
  UpstreamMoney as Amount,
  PostalAddress,
  Address as OrderAddress,
  User,
  Order,
  Product,
  VehicleDetails,
  PickupCenter,
  PriceLine,
  TaxLine,
  Estimate,
  Payment,
  TradeIn,
} from '../../../src/upstream/models.js';

export interface UpstreamOptions extends DataSourceConfig {
  baseURL: string;
  /** The caller's `Authorization` header, forwarded as is; empty when it sent none. */
  token: string;
}

/** One upstream host: its base URL, the caller's token, and the contract's calls to it. */
export class UpstreamAPI extends RESTDataSource {
  private readonly token: string;

  constructor({ baseURL, token, cache }: UpstreamOptions) {
    super({ cache });
    // A base with a path prefix (http://host/order-service) needs a trailing slash, and the
    // paths below none at their start: RESTDataSource resolves them like `new URL(path, base)`.
    this.baseURL = baseURL.endsWith('/') ? baseURL : `${baseURL}/`;
    this.token = token;
  }

  protected override willSendRequest(_path: string, request: AugmentedRequest) {
    if (this.token) request.headers['authorization'] = this.token;
  }

  /** A GET of the contract with its parameters, in its path and query as the contract spells them. */
  call<T>(operation: OperationName, params: Record<string, string> = {}): Promise<T> {
    if (CONTRACT[operation].method !== 'GET') throw new Error(`${operation} is not a GET`);
    return this.get<T>(contractPath(operation, params).replace(/^\//, ''));
  }

  /**
   * A nested lookup: 404 means the thing does not exist (yet), and 409 that the order has not
   * reached the stage it comes at: each is null, not an error.
   */
  async callOrNull<T>(operation: OperationName, params: Record<string, string>): Promise<T | null> {
    try {
      return await this.call<T>(operation, params);
    } catch (error) {
      // RESTDataSource throws a GraphQLError carrying the upstream response.
      const response = error instanceof GraphQLError ? (error.extensions.response as { status?: number } | undefined) : undefined;
      if (response?.status === 404 || response?.status === 409) return null;
      throw error;
    }
  }
}
