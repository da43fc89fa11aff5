/**
 * The REST side of the Apollo peer: one `RESTDataSource` per upstream host, as Apollo's
 * "Fetching from REST" page teaches. They are made per request (in the server's `context`)
 * with the caller's `Authorization` header and the server's cache, so each keeps its
 * in-flight GET deduplication to one GraphQL request. Paths and parameter spellings are
 * those of `upstream/openapi.yaml`; the JSON types are what the resolvers read of it.
 */
import { RESTDataSource, type AugmentedRequest, type DataSourceConfig } from '@apollo/datasource-rest';
import { GraphQLError } from 'graphql';

/** An amount in major units: a JSON number upstream (a decimal string is accepted too). */
export type Amount = number | string;

export interface PostalAddress {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  region?: string | null;
  zipcode?: string | null;
  country?: string | null;
}

export interface OrderAddress extends PostalAddress {
  id: string;
  addressType?: string | null;
  primary?: boolean | null;
  validated?: boolean | null;
}

export interface User {
  id: string;
  createdAt?: string | null;
  address?: PostalAddress | null;
}

export interface Order {
  id: string;
  reservationId: string;
  status: string;
  createdAt?: string | null;
  updatedAt?: string | null;
  cancelledAt?: string | null;
  completedAt?: string | null;
  editBuildExpirationDate?: string | null;
  vehicleDelivered?: boolean | null;
  product?: Product | null;
}

export interface Product {
  currencyCode?: string | null;
  msrp?: Amount | null;
  preorderFee?: Amount | null;
  deliveryFees?: Amount | null;
}

export interface VehicleDetails {
  vin: string;
  model: string;
  modelYear?: string | null;
  lastUpdatedAt?: string | null;
}

export interface PickupCenter {
  centerPlusLocationId: string;
  name: string;
  address?: PostalAddress | null;
  distance?: { value?: number | null; unit?: string | null } | null;
  pickupAvailable?: boolean | null;
  earliestPickupDate?: string | null;
}

export interface PriceLine {
  code?: string | null;
  description?: string | null;
  amount?: Amount | null;
}

export interface TaxLine extends PriceLine {
  rate?: number | null;
  taxableAmount?: Amount | null;
}

export interface Estimate {
  currencyCode: string;
  vehiclePrice?: Amount | null;
  optionsTotal?: Amount | null;
  fees?: PriceLine[] | null;
  feesTotal?: Amount | null;
  taxes?: TaxLine[] | null;
  taxTotal?: Amount | null;
  credits?: PriceLine[] | null;
  tradeInCredit?: Amount | null;
  total: Amount;
  paidTotal?: Amount | null;
  amountDue: Amount;
  calculatedAt?: string | null;
}

export interface Payment {
  id: string;
  feeType: string;
  amount: Amount;
  currencyCode: string;
  status: string;
  paymentMethod?: string | null;
  paidAt?: string | null;
  createdAt?: string | null;
}

export interface TradeIn {
  id: string;
  status: string;
  offer?: { amount?: Amount | null; currencyCode?: string | null; expiresAt?: string | null } | null;
  payoff?: { lienHolder?: string | null; amount?: Amount | null } | null;
  netCredit?: Amount | null;
  vehicle?: { mileageUnit?: string | null } | null;
}

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
