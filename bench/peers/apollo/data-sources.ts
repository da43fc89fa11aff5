/**
 * The REST side of the Apollo peer: one `RESTDataSource` per upstream host, as Apollo's
 * "Fetching from REST" page teaches. They are made per request (in the server's `context`)
 * with the caller's `Authorization` header and the server's cache, so each keeps its
 * in-flight GET deduplication to one GraphQL request. Paths and parameter spellings are
 * those of `upstream/openapi.yaml`; the JSON types are the project's models.
 */
import { RESTDataSource, type AugmentedRequest, type DataSourceConfig } from '@apollo/datasource-rest';
import { GraphQLError } from 'graphql';

// The upstream's JSON as the project's models type it (types only: nothing of the gateway runs here).
import type {
  Address as OrderAddress,
  Estimate,
  Order,
  Payment,
  PickupCenter,
  TradeIn,
  User,
  VehicleDetails,
} from '../../../src/upstream/models.js';

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

/** What the five data sources share: the base URL, the caller's token and the 404 rule. */
abstract class UpstreamAPI extends RESTDataSource {
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

  /**
   * A nested lookup: 404 means the thing does not exist (yet), and 409 that the order has not
   * reached the stage it comes at: each is null, not an error.
   */
  protected async getOrNull<T>(path: string, params: Record<string, string>): Promise<T | null> {
    try {
      return await this.get<T>(path, { params });
    } catch (error) {
      // RESTDataSource throws a GraphQLError carrying the upstream response.
      const response = error instanceof GraphQLError ? (error.extensions.response as { status?: number } | undefined) : undefined;
      if (response?.status === 404 || response?.status === 409) return null;
      throw error;
    }
  }
}

export class AuthAPI extends UpstreamAPI {
  getMe() {
    return this.get<User>('auth/me');
  }
}

export class AppointmentAPI extends UpstreamAPI {
  getVehicleDetails(orderId: string, reservationId: string) {
    return this.getOrNull<VehicleDetails>('vehicle/getDetails', { order_id: orderId, reservation_id: reservationId });
  }
}

export class OrderAPI extends UpstreamAPI {
  getOrders() {
    return this.get<Order[]>('v2/order/user');
  }

  getEstimate(orderId: string) {
    return this.getOrNull<Estimate>('order/estimate', { orderID: orderId });
  }

  // Asked for by both Order.addresses and Order.shippingAddress: RESTDataSource sends the
  // identical GET once per request (its in-flight deduplication).
  getAddresses(orderId: string) {
    return this.getOrNull<OrderAddress[]>(`order-address/findAll/${encodeURIComponent(orderId)}`, {});
  }

  getPayments(orderId: string, feeType: string) {
    return this.getOrNull<Payment[]>('order-payments', { order_id: orderId, fee_type: feeType });
  }
}

export class PriceCalculatorAPI extends UpstreamAPI {
  getNearestPickupCenter(orderId: string) {
    return this.getOrNull<PickupCenter>('pickup-scheduler/get-pickup-nearest-center-plus', { orderId });
  }
}

export class TradeInAPI extends UpstreamAPI {
  getTradeIn(reservationId: string) {
    return this.getOrNull<TradeIn>('partner-trade-in/trade-in-details', { reservationId });
  }
}
