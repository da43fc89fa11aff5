/**
 * The upstream JSON models, as `upstream/openapi.yaml` describes them. They are the
 * resolver parents (codegen mappers). Every field but the contract's required ones is
 * optional, and any of them may be null: the gateway reads them tolerantly.
 */

/** An amount in major units: a JSON number upstream (a decimal string is accepted too). */
export type UpstreamMoney = number | string;

/** The error body the upstream sends with a 4xx or 5xx (the contract's error schema). */
export interface UpstreamErrorBody {
  statusCode?: number;
  error?: string;
  code?: string;
  message?: string;
  path?: string;
  timestamp?: string;
}

export interface TokenSet {
  accessToken: string;
  /** Epoch seconds, or milliseconds when above 1e12. */
  accessExpiration: number;
  idToken?: string | null;
  idExpiration?: number | null;
  refreshToken: string;
}

export interface PostalAddress {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  region?: string | null;
  zipcode?: string | null;
  country?: string | null;
}

export interface User {
  id: string;
  email?: string | null;
  emailVerified?: boolean | null;
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  country?: string | null;
  locale?: string | null;
  address?: PostalAddress | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}

export interface VehicleDetails {
  orderId: string;
  reservationId: string;
  vin: string;
  model: string;
  exterior?: string | null;
  interior?: string | null;
  lastUpdatedAt?: string | null;
  /** A string upstream, e.g. "2023". */
  modelYear?: string | null;
  salesCountry?: string | null;
  trim?: string | null;
  wheel?: string | null;
  digitalId?: string | null;
}

export interface Product {
  id?: string | null;
  country?: string | null;
  preorderFee?: UpstreamMoney | null;
  msrp?: UpstreamMoney | null;
  deliveryFees?: UpstreamMoney | null;
  currencyCode?: string | null;
  model?: string | null;
  trim?: string | null;
}

export interface Configuration {
  id?: string | null;
  exterior?: string | null;
  interior?: string | null;
  wheel?: string | null;
  trim?: string | null;
}

export interface Address extends PostalAddress {
  id: string;
  orderId?: string | null;
  /** DELIVERY, BILLING, REGISTRATION; others may appear. */
  addressType?: string | null;
  validated?: boolean | null;
  primary?: boolean | null;
  isActive?: boolean | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}

/** The GraphQL Address is made from either upstream shape: a postal address or an order address. */
export type AnyAddress = PostalAddress | Address;

export interface Order {
  id: string;
  reservationId: string;
  userId: string;
  /** One of the stages, CANCELLED, or a value this contract does not know yet. */
  status: string;
  paymentId?: string | null;
  applicationSource?: string | null;
  editBuildExpirationDate?: string | null;
  editBuildQuarter?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  cancelledAt?: string | null;
  completedAt?: string | null;
  centerPlusLocationId?: string | null;
  tradeinId?: string | null;
  vehicleDelivered?: boolean | null;
  deliveryAddressId?: string | null;
  configurationId?: string | null;
  product?: Product | null;
  deliveryAddress?: Address | null;
  configuration?: Configuration | null;
}

export interface PickupCenter {
  orderId?: string | null;
  centerPlusLocationId: string;
  name: string;
  address?: PostalAddress | null;
  latitude?: number | null;
  longitude?: number | null;
  timeZone?: string | null;
  distance?: { value?: number | null; unit?: string | null } | null;
  phone?: string | null;
  email?: string | null;
  pickupAvailable?: boolean | null;
  earliestPickupDate?: string | null;
}

export interface PriceLine {
  code: string;
  description?: string | null;
  amount: UpstreamMoney;
}

export interface TaxLine {
  code?: string | null;
  description?: string | null;
  rate?: number | null;
  taxableAmount?: UpstreamMoney | null;
  amount?: UpstreamMoney | null;
}

export interface Estimate {
  orderId: string;
  currencyCode: string;
  vehiclePrice?: UpstreamMoney | null;
  optionsTotal?: UpstreamMoney | null;
  fees?: PriceLine[] | null;
  feesTotal?: UpstreamMoney | null;
  taxes?: TaxLine[] | null;
  taxTotal?: UpstreamMoney | null;
  credits?: PriceLine[] | null;
  tradeInCredit?: UpstreamMoney | null;
  total: UpstreamMoney;
  paidTotal?: UpstreamMoney | null;
  amountDue: UpstreamMoney;
  isEstimate?: boolean | null;
  calculatedAt?: string | null;
}

export interface Payment {
  id: string;
  orderId: string;
  feeType: string;
  amount: UpstreamMoney;
  currencyCode: string;
  /** PENDING, SUCCEEDED, FAILED, REFUNDED; others may appear. */
  status: string;
  paymentMethod?: string | null;
  card?: { brand?: string | null; last4?: string | null; expiryDate?: string | null } | null;
  refundable?: boolean | null;
  /** Internal to the payment provider: never exposed by the gateway. */
  transactionReference?: string | null;
  paidAt?: string | null;
  createdAt?: string | null;
}

export interface TradeInVehicle {
  vin?: string | null;
  year?: number | null;
  make?: string | null;
  model?: string | null;
  trim?: string | null;
  mileage?: number | null;
  /** mi or km. */
  mileageUnit?: string | null;
  condition?: string | null;
}

export interface TradeIn {
  id: string;
  reservationId: string;
  orderId?: string | null;
  partner?: string | null;
  partnerReferenceId?: string | null;
  status: string;
  vehicle?: TradeInVehicle | null;
  offer?: { amount?: UpstreamMoney | null; currencyCode?: string | null; expiresAt?: string | null } | null;
  payoff?: { lienHolder?: string | null; amount?: UpstreamMoney | null } | null;
  netCredit?: UpstreamMoney | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}
