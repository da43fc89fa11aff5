import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { TokenSet as TokenSetModel, User as UserModel, Order as OrderModel, Product as ProductModel, Configuration as ConfigurationModel, VehicleDetails as VehicleDetailsModel, PickupCenter as PickupCenterModel, Estimate as EstimateModel, AddressParent as AddressParentModel, Payment as PaymentModel, TradeInParent as TradeInParentModel, TradeInVehicle as TradeInVehicleModel, OrderUpdateParent as OrderUpdateParentModel } from '../mappers.js';
import type { NotificationSettings as NotificationSettingsModel, GraphQLContext } from '../context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** A calendar day without time or time zone, formatted `YYYY-MM-DD`, e.g. `2023-08-14`. */
  Date: { input: string; output: string; }
  /** A point in time: an ISO 8601 string in UTC with millisecond precision, e.g. `2023-07-20T07:15:58.278Z`. */
  DateTime: { input: string; output: string; }
  /** An exact decimal number serialized as a string with two decimals, e.g. `"68999.00"`. Never a float: parse it with a decimal library before doing arithmetic. */
  Decimal: { input: string; output: string; }
};

/** A postal address. Order addresses (upstream Address) carry `id`, `type`, `primary` and `validated`; profile and pickup-centre addresses (upstream PostalAddress) leave them null. */
export type Address = {
  __typename?: 'Address';
  /** City; null when omitted. */
  city?: Maybe<Scalars['String']['output']>;
  /** Country as upstream sends it, e.g. `United States`; null when omitted. */
  country?: Maybe<Scalars['String']['output']>;
  /** Address identifier; null for profile and pickup-centre addresses. */
  id?: Maybe<Scalars['ID']['output']>;
  /** First address line (upstream `address1`); null when omitted. */
  line1?: Maybe<Scalars['String']['output']>;
  /** Second address line (upstream `address2`); null when there is none. */
  line2?: Maybe<Scalars['String']['output']>;
  /** Postal code (upstream `zipcode`), e.g. `20169-2030`; null when omitted. */
  postalCode?: Maybe<Scalars['String']['output']>;
  /** Whether this is the primary address of its type; null when unknown. */
  primary?: Maybe<Scalars['Boolean']['output']>;
  /** State or region code, e.g. `VA`; null when omitted. */
  region?: Maybe<Scalars['String']['output']>;
  /** What the address is used for (upstream `addressType`); UNKNOWN for an unknown value, null for non-order addresses. */
  type?: Maybe<AddressType>;
  /** Whether the address has been validated; null when unknown. */
  validated?: Maybe<Scalars['Boolean']['output']>;
};

/** What an order address is used for (upstream `addressType`). */
export type AddressType =
  /** Where invoices are sent. */
  | 'BILLING'
  /** Where the vehicle is delivered. */
  | 'DELIVERY'
  /** Where the vehicle is registered. */
  | 'REGISTRATION'
  /** An upstream address type this API does not know yet. */
  | 'UNKNOWN';

/** The card a payment was made with (masked). */
export type Card = {
  __typename?: 'Card';
  /** Card network, e.g. `VISA`; null when omitted. */
  brand?: Maybe<Scalars['String']['output']>;
  /** Card expiry as upstream sends it, `MM/YYYY`, e.g. `08/2026`; null when omitted. */
  expiryDate?: Maybe<Scalars['String']['output']>;
  /** Last four digits of the card number, e.g. `4242`; null when omitted. */
  last4?: Maybe<Scalars['String']['output']>;
};

/** The build configuration chosen for the order (upstream `Order.configuration`). Values are upstream option codes. */
export type Configuration = {
  __typename?: 'Configuration';
  /** Exterior paint option code; null when not chosen. */
  exterior?: Maybe<Scalars['String']['output']>;
  /** The words for `exterior` from the operator's labels file, e.g. `Big Sur Blue`; null when `exterior` is null or the file has no label for it (show the code alone). */
  exteriorLabel?: Maybe<Scalars['String']['output']>;
  /** Interior option code; null when not chosen. */
  interior?: Maybe<Scalars['String']['output']>;
  /** The words for `interior` from the operator's labels file, e.g. `Black`; null when `interior` is null or the file has no label for it (show the code alone). */
  interiorLabel?: Maybe<Scalars['String']['output']>;
  /** Trim option code; null when not chosen. */
  trim?: Maybe<Scalars['String']['output']>;
  /** The words for `trim` from the operator's labels file, e.g. `One`; null when `trim` is null or the file has no label for it (show the code alone). */
  trimLabel?: Maybe<Scalars['String']['output']>;
  /** Wheel option code; null when not chosen. */
  wheel?: Maybe<Scalars['String']['output']>;
  /** The words for `wheel` from the operator's labels file, e.g. `22-inch Black`; null when `wheel` is null or the file has no label for it (show the code alone). */
  wheelLabel?: Maybe<Scalars['String']['output']>;
};

/** The signed-in customer (upstream User from `GET /auth/me`). */
export type Customer = {
  __typename?: 'Customer';
  /** The customer's postal address from their profile (no id, type or flags); null when they have none. */
  address?: Maybe<Address>;
  /** Customer's country as upstream sends it, e.g. `US`; null when omitted. */
  country?: Maybe<Scalars['String']['output']>;
  /** When the customer account was created, in UTC; null when omitted. */
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  /** Email address the customer signs in with; null when upstream omits it. */
  email?: Maybe<Scalars['String']['output']>;
  /** Whether the customer has verified their email address; null when unknown. */
  emailVerified?: Maybe<Scalars['Boolean']['output']>;
  /** Given name; null when upstream omits it. */
  firstName?: Maybe<Scalars['String']['output']>;
  /** Stable customer identifier (a UUID). */
  id: Scalars['ID']['output'];
  /** Family name; null when upstream omits it. */
  lastName?: Maybe<Scalars['String']['output']>;
  /** Preferred locale as a BCP 47 tag, e.g. `en-US`; null when omitted. */
  locale?: Maybe<Scalars['String']['output']>;
  /** How many orders the customer has in all (`orders` returns them a page at a time); null with an error when the order list failed. */
  orderCount?: Maybe<Scalars['Int']['output']>;
  /** The customer's orders (upstream `GET /v2/order/user`, fetched in parallel with the profile and shared with `Query.orders`), a page at a time in the upstream's order: the first 16 unless `first` says otherwise. Sixteen whole orders fit in a request's upstream budget; `orderCount` tells whether there are more. Empty list when none, null with an error on failure. */
  orders?: Maybe<Array<Order>>;
  /** Phone number in E.164 format, e.g. `+15715550123`; null when the customer has none. */
  phoneNumber?: Maybe<Scalars['String']['output']>;
};


/** The signed-in customer (upstream User from `GET /auth/me`). */
export type CustomerOrdersArgs = {
  after?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A distance with its unit. */
export type Distance = {
  __typename?: 'Distance';
  /** Unit the value is measured in. */
  unit: DistanceUnit;
  /** The distance in `unit`, e.g. 12.4. */
  value: Scalars['Float']['output'];
};

/** Unit of a distance or a mileage. */
export type DistanceUnit =
  /** Kilometres (upstream `km`). */
  | 'KM'
  /** Miles (upstream `mi`). */
  | 'MI';

/** The price breakdown of an order (upstream Estimate from `GET /order/estimate`). All amounts are in the estimate's currency (upstream `currencyCode`). */
export type Estimate = {
  __typename?: 'Estimate';
  /** Amount still to be paid. */
  amountDue: Money;
  /** When the estimate was calculated, in UTC; null when omitted. */
  calculatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** Credits deducted from the price; empty list when none. */
  credits: Array<PriceLine>;
  /** Individual fees; empty list when none. */
  fees: Array<PriceLine>;
  /** Sum of the fees; null when omitted. */
  feesTotal?: Maybe<Money>;
  /** True while the figures are an estimate rather than a final price; null when unknown. */
  isEstimate?: Maybe<Scalars['Boolean']['output']>;
  /** Sum of the selected options; null when omitted. */
  optionsTotal?: Maybe<Money>;
  /** Amount the customer has already paid; null when omitted. */
  paidTotal?: Maybe<Money>;
  /** Sum of the taxes; null when omitted. */
  taxTotal?: Maybe<Money>;
  /** Individual taxes; empty list when none. */
  taxes: Array<TaxLine>;
  /** Total price of the order after fees, taxes and credits. */
  total: Money;
  /** The trade-in's net credit, repeated from `credits`: it is the amount of the `TRADE_IN_CREDIT` line there, and `total` takes it off once, with the other credits. 0 without a trade-in (the upstream sends 0, not nothing); null only when the upstream omits it. Show `credits` and leave this out of a sum, or the trade-in counts twice. */
  tradeInCredit?: Maybe<Money>;
  /** Base price of the vehicle; null when omitted. */
  vehiclePrice?: Maybe<Money>;
};

/** The fee a payment is for (upstream `feeType`). */
export type FeeType =
  /** The fee paid to place the order. */
  | 'ORDER_FEE';

/** An exact amount of money in major units (dollars, not cents), in the currency of the record it belongs to. */
export type Money = {
  __typename?: 'Money';
  /** The amount as an exact decimal string in major units, e.g. `"68999.00"`. */
  amount: Scalars['Decimal']['output'];
  /** ISO 4217 currency code of the amount, e.g. `USD`, taken from the upstream record's `currencyCode`. */
  currencyCode: Scalars['String']['output'];
};

/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type Mutation = {
  __typename?: 'Mutation';
  /** Sends the caller's order changes by e-mail to the account's own address, which the upstream must say is verified (no other address can be given). `refreshToken` as for `addWebPushTarget`. Added again, it is the same target. */
  addEmailTarget: NotificationTarget;
  /** Sends the caller's order changes to this browser by Web Push. `refreshToken` hands a refresh token over to the gateway, which renews the customer's access with it from then on to poll on the customer's behalf (the upstream's refresh tokens are single-use: do not use it again yourself); it is required while the gateway keeps none for the caller, and replaces the kept one when given. Requires `Authorization: Bearer <accessToken>`. The same endpoint added again is the same target. */
  addWebPushTarget: NotificationTarget;
  /** Sends the caller's order changes as signed POSTs to `url` (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). The URL must be https and resolve to a public address; redirects are not followed. The answer carries the signing secret, shown this once. `refreshToken` as for `addWebPushTarget`. */
  addWebhookTarget: WebhookTargetCreated;
  /** Signs in with a username and password (upstream `POST /auth/login`) and returns a token set. Send its `accessToken` as `Authorization: Bearer <accessToken>` on later requests. */
  login: TokenSet;
  /** Renews the token set (upstream `POST /auth/refresh`). The request's bearer access token is forwarded when present (it may already be expired); otherwise the refresh token itself is sent as the bearer. */
  refreshTokens: TokenSet;
  /** Removes one of the caller's targets: true when it was there. Removing the last one deletes the refresh token the gateway kept. */
  removeNotificationTarget: Scalars['Boolean']['output'];
  /** Queues a test message to one of the caller's targets (it counts against the hourly limit): true when queued. */
  sendTestNotification: Scalars['Boolean']['output'];
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationAddEmailTargetArgs = {
  refreshToken?: InputMaybe<Scalars['String']['input']>;
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationAddWebPushTargetArgs = {
  refreshToken?: InputMaybe<Scalars['String']['input']>;
  subscription: WebPushSubscriptionInput;
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationAddWebhookTargetArgs = {
  refreshToken?: InputMaybe<Scalars['String']['input']>;
  url: Scalars['String']['input'];
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationLoginArgs = {
  password: Scalars['String']['input'];
  username: Scalars['String']['input'];
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationRefreshTokensArgs = {
  refreshToken: Scalars['String']['input'];
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationRemoveNotificationTargetArgs = {
  id: Scalars['ID']['input'];
};


/** Write operations: signing in and renewing tokens. On failure the mutation's `data` is null and `errors` holds one entry with an `extensions.code` (UNAUTHENTICATED for bad credentials or a bad refresh token). */
export type MutationSendTestNotificationArgs = {
  id: Scalars['ID']['input'];
};

/** How a message reaches the customer. */
export type NotificationChannel =
  /** An e-mail to the account's own verified address. */
  | 'EMAIL'
  /** A signed HTTPS POST (Standard Webhooks) for home automation. */
  | 'WEBHOOK'
  /** A Web Push message to a browser (the tracker page's service worker shows it). */
  | 'WEB_PUSH';

/** One place the caller's messages go. */
export type NotificationTarget = {
  __typename?: 'NotificationTarget';
  /** The channel. */
  channel: NotificationChannel;
  /** When it was added, in UTC. */
  createdAt: Scalars['DateTime']['output'];
  /** Where it points, as the customer may see it: the push service's host, the e-mail address partly hidden (`c***d@example.com`), the webhook URL's origin (its path, often the receiver's own secret, shown as `/…`). */
  description: Scalars['String']['output'];
  /** When it was disabled, in UTC; null while it is active. A disabled target gets nothing more: remove it and add it again. */
  disabledAt?: Maybe<Scalars['DateTime']['output']>;
  /** Why it was disabled, in plain words; null while it is active. */
  disabledReason?: Maybe<Scalars['String']['output']>;
  /** Since when every attempt to reach it has failed, in UTC; null while it works. After NOTIFY_DISABLE_AFTER_MS of failures it is disabled. */
  failingSince?: Maybe<Scalars['DateTime']['output']>;
  /** The target's identifier: give it to `removeNotificationTarget` or `sendTestNotification`. Also the webhook's `webhook-id` prefix. */
  id: Scalars['ID']['output'];
  /** When a message last reached it, in UTC; null when none has yet. */
  lastDeliveredAt?: Maybe<Scalars['DateTime']['output']>;
};

/** Notifications: a message when an order moves, with no page open. The REST service has no events, so the gateway polls each customer who turned notifications on (every NOTIFY_POLL_INTERVAL_MS, one replica per customer) with a refresh token the customer handed over, and sends one message per change to each of the customer's targets. docs/notifications.md tells the whole story. */
export type Notifications = {
  __typename?: 'Notifications';
  /** The channels this gateway can send on: WEB_PUSH with VAPID keys set, EMAIL with SMTP set (or the demo's printed mail), WEBHOOK always while enabled. */
  channels: Array<NotificationChannel>;
  /** Whether this gateway sends notifications at all (NOTIFY_TOKEN_KEYS is set, or npm start's demo). When false, every other field is empty (0 for the numbers) and adding a target is refused. */
  enabled: Scalars['Boolean']['output'];
  /** The most targets one customer may have (NOTIFY_TARGETS_PER_CUSTOMER). */
  maxTargets: Scalars['Int']['output'];
  /** How often the gateway looks at the customer's orders, in seconds: a change reaches a target within about this long. */
  pollIntervalSeconds: Scalars['Int']['output'];
  /** The caller's targets, oldest first; empty when there are none. Requires `Authorization: Bearer <accessToken>`. */
  targets: Array<NotificationTarget>;
  /** The VAPID public key (base64url) to give `PushManager.subscribe` as `applicationServerKey`; null without WEB_PUSH. */
  webPushPublicKey?: Maybe<Scalars['String']['output']>;
};

/** A vehicle order (upstream Order from `GET /v2/order/user`). Per-order fields such as `vehicle`, `pickup` and `estimate` each come from their own upstream call; a failure in one leaves the others intact. */
export type Order = {
  __typename?: 'Order';
  /** All addresses of the order, of every type (same upstream call as `shippingAddress`); empty list when none. */
  addresses?: Maybe<Array<Address>>;
  /** The parts of the order that exist only from a given stage (one per `OrderPart`), each with that stage and whether the part can have a value at the order's status. A part whose stage is not reached is null with no error (not yet is data, not a failure) unless its upstream call failed: then its error is in `errors`, as at any stage. From the order's status alone: no upstream call. */
  availability: Array<PartAvailability>;
  /** Deadline for editing the build configuration, in UTC (upstream `editBuildExpirationDate`); null when no deadline is set. */
  buildEditableUntil?: Maybe<Scalars['DateTime']['output']>;
  /** When the order was cancelled, in UTC; null unless it was cancelled. */
  cancelledAt?: Maybe<Scalars['DateTime']['output']>;
  /** When the order was completed, in UTC; null until it is completed. */
  completedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The chosen build configuration (colours, wheels, trim); null when upstream omits it. */
  configuration?: Maybe<Configuration>;
  /** When the order was created, in UTC; null when upstream omits it. */
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  /** Whether the vehicle has been delivered (upstream `vehicleDelivered`; false when omitted). */
  delivered: Scalars['Boolean']['output'];
  /** The order's price breakdown (upstream `GET /order/estimate`). Available from ORDER_CONFIRMED: earlier, null with no error (`availability` says so). */
  estimate?: Maybe<Estimate>;
  /** What changed in this order and when, as the gateway observed it, newest first: an event each time the gateway read the customer's orders (for a query or a live poll) and found this order different from the last state it kept; the oldest event is the first observation, with no changes. Costs no upstream call of its own. Empty when the gateway keeps no history (`HISTORY=off`). */
  history: Array<OrderEvent>;
  /** Order identifier; pass it to `Query.order(id:)`. */
  id: Scalars['ID']['output'];
  /** Payments of the order for one fee type (upstream `GET /order-payments`); empty list when none. */
  payments?: Maybe<Array<Payment>>;
  /** The nearest pickup centre (upstream `GET /pickup-scheduler/get-pickup-nearest-center-plus`). Available from IN_TRANSIT: earlier, null with no error (`availability` says so). */
  pickup?: Maybe<Pickup>;
  /** The ordered product (model, trim, prices); null when upstream omits it. */
  product?: Maybe<Product>;
  /** The upstream `status` string exactly as sent, e.g. `ORDER_CONFIRMED`. */
  rawStatus: Scalars['String']['output'];
  /** Reservation identifier shown to the customer, e.g. `OC-ACBDE`. */
  reservationId: Scalars['ID']['output'];
  /** Where the vehicle is delivered: the order's DELIVERY address, the primary one first (upstream `GET /order-address/findAll`); null when there is none. */
  shippingAddress?: Maybe<Address>;
  /** Current stage of the order; UNKNOWN when upstream sends a value this API does not know yet. */
  status: OrderStatus;
  /** The trade-in attached to the order's reservation (upstream `GET /partner-trade-in/trade-in-details`); null with no error when there is none. */
  tradeIn?: Maybe<TradeIn>;
  /** When the order was last changed, in UTC; null when upstream omits it. */
  updatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** Production details of the vehicle (upstream `GET /vehicle/getDetails`), its VIN among them; null with no error when no vehicle is assigned yet. Available from IN_PRODUCTION: earlier, null with no error (`availability` says so). */
  vehicle?: Maybe<Vehicle>;
};


/** A vehicle order (upstream Order from `GET /v2/order/user`). Per-order fields such as `vehicle`, `pickup` and `estimate` each come from their own upstream call; a failure in one leaves the others intact. */
export type OrderHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A vehicle order (upstream Order from `GET /v2/order/user`). Per-order fields such as `vehicle`, `pickup` and `estimate` each come from their own upstream call; a failure in one leaves the others intact. */
export type OrderPaymentsArgs = {
  feeType?: InputMaybe<FeeType>;
};

/** One field of an order that changed, with its old and new values as the order's fields show them. */
export type OrderChange = {
  __typename?: 'OrderChange';
  /** The order field that changed, e.g. `status`, `updatedAt`, `delivered`, or a nested one such as `product.trim`. */
  field: Scalars['String']['output'];
  /** The value before, as text; null when there was none. */
  from?: Maybe<Scalars['String']['output']>;
  /** The value now, as text; null when there is none. */
  to?: Maybe<Scalars['String']['output']>;
};

/** One observed change of an order: when the gateway saw it and which order fields differed from the state it saw before. */
export type OrderEvent = {
  __typename?: 'OrderEvent';
  /** The order fields that changed since the previous event; empty for the first observation of the order. */
  changes: Array<OrderChange>;
  /** Opaque position of this event in the history: pass it as `history(after:)` to read the events older than it. */
  cursor: Scalars['String']['output'];
  /** When the gateway saw this state of the order, in UTC (the same instant as the live `OrderUpdate.observedAt` of the same change). */
  observedAt: Scalars['DateTime']['output'];
};

/** A part of an order that comes from its own upstream call and exists only from a given stage of the order. */
export type OrderPart =
  /** `Order.estimate`: the order's price breakdown, from ORDER_CONFIRMED. */
  | 'ESTIMATE'
  /** `Order.pickup`: the nearest pickup centre, from IN_TRANSIT. */
  | 'PICKUP'
  /** `Order.vehicle`: production details of the vehicle, from IN_PRODUCTION. */
  | 'VEHICLE';

/** The stage of an order. Stages follow each other in the order listed, from RESERVED to DELIVERED; CANCELLED is outside that sequence. Some order fields are only available from a given stage (`Order.availability`). */
export type OrderStatus =
  /** Stage 4: the build configuration is locked and can no longer be edited. */
  | 'BUILD_LOCKED'
  /** The order was cancelled; outside the stage sequence, so stage-gated fields are not available. */
  | 'CANCELLED'
  /** Stage 8 (final): the vehicle has been handed over to the customer. */
  | 'DELIVERED'
  /** Stage 5: the vehicle is being built; `vehicle` becomes available. */
  | 'IN_PRODUCTION'
  /** Stage 6: the vehicle is on its way; `pickup` becomes available. */
  | 'IN_TRANSIT'
  /** Stage 3: the order is paid and confirmed; `estimate` becomes available. */
  | 'ORDER_CONFIRMED'
  /** Stage 2: the customer has placed the order and its order fee payment is pending. */
  | 'ORDER_PENDING_PAYMENT'
  /** Stage 7: the vehicle has arrived at the pickup centre and is ready to be collected. */
  | 'READY_FOR_PICKUP'
  /** Stage 1: a vehicle is reserved but the order is not placed yet; most per-order data is not available. */
  | 'RESERVED'
  /** An upstream status this API does not know yet; see `Order.rawStatus` for the value as sent. */
  | 'UNKNOWN';

/** One order as it is now, with what changed since the last event for it. */
export type OrderUpdate = {
  __typename?: 'OrderUpdate';
  /** What changed in the order record since the previous event: empty in the first event for an order. */
  changes: Array<OrderChange>;
  /** When the gateway saw this state of the order, in UTC. */
  observedAt: Scalars['DateTime']['output'];
  /** The order now. Its other fields (vehicle, pickup, estimate, …) are fetched afresh for each event. */
  order: Order;
};

/** When one stage-gated part of an order is available (`Order.availability`). */
export type PartAvailability = {
  __typename?: 'PartAvailability';
  /** Whether the part can have a value for the order's status. True when the order is at that stage or past it, and for a status this API does not know (UNKNOWN): only the service can place that status among the stages, and the part is asked for whatever the status, so it may come. False before that stage and for a CANCELLED order: the service answers no value, and the field is null. Either way a part whose upstream call failed is null with its error in `errors`: check `errors` first (a failure is not "not yet"), then `available`. */
  available: Scalars['Boolean']['output'];
  /** The stage from which the part is available. */
  from: OrderStatus;
  /** Which part of the order. */
  part: OrderPart;
};

/** A payment made on an order (upstream Payment from `GET /order-payments`). The upstream `transactionReference` is internal and never exposed. */
export type Payment = {
  __typename?: 'Payment';
  /** Amount paid, in the payment's currency (upstream `currencyCode`). */
  amount: Money;
  /** The card used; null when the payment was not made by card. */
  card?: Maybe<Card>;
  /** When the payment was created, in UTC; null when omitted. */
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  /** The fee this payment is for. */
  feeType: FeeType;
  /** Payment identifier. */
  id: Scalars['ID']['output'];
  /** Payment method (upstream `paymentMethod`), e.g. `CREDIT_CARD`; null when omitted. */
  method?: Maybe<Scalars['String']['output']>;
  /** When the payment was settled, in UTC; null until it is. */
  paidAt?: Maybe<Scalars['DateTime']['output']>;
  /** Whether the payment can still be refunded; null when unknown. */
  refundable?: Maybe<Scalars['Boolean']['output']>;
  /** State of the payment; UNKNOWN for a value this API does not know yet. */
  status: PaymentStatus;
};

/** State of a payment (upstream `status`). */
export type PaymentStatus =
  /** The payment was declined or failed. */
  | 'FAILED'
  /** The payment has been started but not settled yet. */
  | 'PENDING'
  /** The payment was refunded to the customer. */
  | 'REFUNDED'
  /** The payment went through. */
  | 'SUCCEEDED'
  /** An upstream payment status this API does not know yet. */
  | 'UNKNOWN';

/** The pickup centre nearest to the customer where the vehicle can be collected (upstream PickupCenter). */
export type Pickup = {
  __typename?: 'Pickup';
  /** Postal address of the centre (no id, type or flags); null when omitted. */
  address?: Maybe<Address>;
  /** Whether pickup can be scheduled at this centre (upstream `pickupAvailable`); null when unknown. */
  available?: Maybe<Scalars['Boolean']['output']>;
  /** Distance from the customer to the centre; null when omitted. */
  distance?: Maybe<Distance>;
  /** First day the vehicle can be collected, in the centre's local calendar; null when not known yet. */
  earliestPickupDate?: Maybe<Scalars['Date']['output']>;
  /** Email address of the centre; null when omitted. */
  email?: Maybe<Scalars['String']['output']>;
  /** Latitude of the centre in decimal degrees; null when omitted. */
  latitude?: Maybe<Scalars['Float']['output']>;
  /** Pickup centre identifier (upstream `centerPlusLocationId`), e.g. `cp-lax-01`. */
  locationId: Scalars['ID']['output'];
  /** Longitude of the centre in decimal degrees; null when omitted. */
  longitude?: Maybe<Scalars['Float']['output']>;
  /** Display name of the centre, e.g. `Center Plus Los Angeles`. */
  name: Scalars['String']['output'];
  /** Phone number of the centre; null when omitted. */
  phone?: Maybe<Scalars['String']['output']>;
  /** IANA time zone of the centre, e.g. `America/Los_Angeles`; null when omitted. */
  timeZone?: Maybe<Scalars['String']['output']>;
};

/** A named amount in an estimate: a fee or a credit. */
export type PriceLine = {
  __typename?: 'PriceLine';
  /** Amount of the line, in the estimate's currency. */
  amount: Money;
  /** Machine-readable code of the line, e.g. `DELIVERY_FEE`. */
  code: Scalars['String']['output'];
  /** Human-readable label of the line; null when omitted. */
  description?: Maybe<Scalars['String']['output']>;
};

/** The product ordered (upstream `Order.product`). Prices are in the product's `currencyCode`. */
export type Product = {
  __typename?: 'Product';
  /** Market the product is sold in, e.g. `United States`; null when omitted. */
  country?: Maybe<Scalars['String']['output']>;
  /** Delivery fees for the vehicle; null when omitted. */
  deliveryFees?: Maybe<Money>;
  /** Vehicle model code, e.g. `OCEAN`; null when omitted. */
  model?: Maybe<Scalars['String']['output']>;
  /** The words for `model` from the operator's labels file, e.g. `Ocean`; null when `model` is null or the file has no label for it (show the code alone). */
  modelLabel?: Maybe<Scalars['String']['output']>;
  /** Manufacturer's suggested retail price; null when omitted. */
  msrp?: Maybe<Money>;
  /** Fee paid to place the order (pre-order fee); null when omitted. */
  preorderFee?: Maybe<Money>;
  /** Trim level code, e.g. `ONE`; null when omitted. */
  trim?: Maybe<Scalars['String']['output']>;
  /** The words for `trim` from the operator's labels file, e.g. `One`; null when `trim` is null or the file has no label for it (show the code alone). */
  trimLabel?: Maybe<Scalars['String']['output']>;
};

/**
 * Read operations. Every upstream-backed field is nullable: when its upstream call fails it is null and `errors` holds one entry for its path whose `extensions.code` is one of `UNAUTHENTICATED`, `FORBIDDEN`, `NOT_AVAILABLE`, `BAD_USER_INPUT`, `RATE_LIMITED`, `UPSTREAM_TIMEOUT`, `UPSTREAM_ERROR`, `UPSTREAM_BUDGET_EXCEEDED` (the request reached its budget of upstream calls: ask for fewer orders at a time) or `INTERNAL_SERVER_ERROR`; sibling fields are unaffected. Two codes end the whole request instead, `data` null with that one error: `ANSWER_TOO_LARGE` (what it read upstream and the answer built from it passed its budget of bytes: ask for fewer orders or fields at a time) and `OVERLOADED` (the gateway holds all the memory it gives requests in flight: HTTP 503 with `Retry-After`; try again in a moment). Errors are for failures; absence and "not yet" are data: something that does not exist (no vehicle yet, no trade-in) or a part whose stage the order has not reached (`Order.availability` says which, and from when) is null with no error. `NOT_AVAILABLE` is kept for a stage refusal the contract does not foresee.
 *
 * A request refused before anything runs has no `data`, one error and an HTTP status: `GRAPHQL_PARSE_FAILED` / `GRAPHQL_VALIDATION_FAILED` (400, the query limits included), `OPERATION_RESOLUTION_FAILURE` (400, no one operation to run), `BAD_REQUEST` (400, not a GraphQL request the gateway takes), `BAD_USER_INPUT` (400, variables that do not fit), `PERSISTED_QUERY_ONLY` / `PERSISTED_QUERY_NOT_FOUND` / `PERSISTED_QUERY_ID_REQUIRED` (400, trusted documents), `CREDENTIAL_OPERATIONS_LIMIT` (400, more than one `login` or `refreshTokens`), `NOT_ACCEPTABLE` (406, a stream for a client that accepts none), `REQUEST_ENTITY_TOO_LARGE` (413), `UNSUPPORTED_CONTENT_ENCODING` (415, a compressed body), `PREFLIGHT_REQUIRED` (403, a POST a page of another site could send without a CORS preflight), `HOST_NOT_ALLOWED` (421, a Host the gateway does not answer for), `RATE_LIMITED` (429, too many of one caller's operations in flight, on any transport, or too many requests in flight from one address).
 */
export type Query = {
  __typename?: 'Query';
  /** The signed-in customer (upstream `GET /auth/me`). Requires `Authorization: Bearer <accessToken>` from `login`; without a valid token it is null with an UNAUTHENTICATED error. */
  me?: Maybe<Customer>;
  /** Notifications: whether they are on, the channels, and the caller's targets. Requires `Authorization: Bearer <accessToken>` for `targets`. */
  notifications: Notifications;
  /** One of the signed-in customer's orders. Requires `Authorization: Bearer <accessToken>`. Null, with no error, when the id is not one of the caller's orders. */
  order?: Maybe<Order>;
  /** The signed-in customer's orders (upstream `GET /v2/order/user`), a page at a time in the upstream's order: the first 16 unless `first` says otherwise (`me { orderCount }` tells how many there are). An empty list when there are none. Requires `Authorization: Bearer <accessToken>`; null with an error on failure. */
  orders?: Maybe<Array<Order>>;
};


/**
 * Read operations. Every upstream-backed field is nullable: when its upstream call fails it is null and `errors` holds one entry for its path whose `extensions.code` is one of `UNAUTHENTICATED`, `FORBIDDEN`, `NOT_AVAILABLE`, `BAD_USER_INPUT`, `RATE_LIMITED`, `UPSTREAM_TIMEOUT`, `UPSTREAM_ERROR`, `UPSTREAM_BUDGET_EXCEEDED` (the request reached its budget of upstream calls: ask for fewer orders at a time) or `INTERNAL_SERVER_ERROR`; sibling fields are unaffected. Two codes end the whole request instead, `data` null with that one error: `ANSWER_TOO_LARGE` (what it read upstream and the answer built from it passed its budget of bytes: ask for fewer orders or fields at a time) and `OVERLOADED` (the gateway holds all the memory it gives requests in flight: HTTP 503 with `Retry-After`; try again in a moment). Errors are for failures; absence and "not yet" are data: something that does not exist (no vehicle yet, no trade-in) or a part whose stage the order has not reached (`Order.availability` says which, and from when) is null with no error. `NOT_AVAILABLE` is kept for a stage refusal the contract does not foresee.
 *
 * A request refused before anything runs has no `data`, one error and an HTTP status: `GRAPHQL_PARSE_FAILED` / `GRAPHQL_VALIDATION_FAILED` (400, the query limits included), `OPERATION_RESOLUTION_FAILURE` (400, no one operation to run), `BAD_REQUEST` (400, not a GraphQL request the gateway takes), `BAD_USER_INPUT` (400, variables that do not fit), `PERSISTED_QUERY_ONLY` / `PERSISTED_QUERY_NOT_FOUND` / `PERSISTED_QUERY_ID_REQUIRED` (400, trusted documents), `CREDENTIAL_OPERATIONS_LIMIT` (400, more than one `login` or `refreshTokens`), `NOT_ACCEPTABLE` (406, a stream for a client that accepts none), `REQUEST_ENTITY_TOO_LARGE` (413), `UNSUPPORTED_CONTENT_ENCODING` (415, a compressed body), `PREFLIGHT_REQUIRED` (403, a POST a page of another site could send without a CORS preflight), `HOST_NOT_ALLOWED` (421, a Host the gateway does not answer for), `RATE_LIMITED` (429, too many of one caller's operations in flight, on any transport, or too many requests in flight from one address).
 */
export type QueryOrderArgs = {
  id: Scalars['ID']['input'];
};


/**
 * Read operations. Every upstream-backed field is nullable: when its upstream call fails it is null and `errors` holds one entry for its path whose `extensions.code` is one of `UNAUTHENTICATED`, `FORBIDDEN`, `NOT_AVAILABLE`, `BAD_USER_INPUT`, `RATE_LIMITED`, `UPSTREAM_TIMEOUT`, `UPSTREAM_ERROR`, `UPSTREAM_BUDGET_EXCEEDED` (the request reached its budget of upstream calls: ask for fewer orders at a time) or `INTERNAL_SERVER_ERROR`; sibling fields are unaffected. Two codes end the whole request instead, `data` null with that one error: `ANSWER_TOO_LARGE` (what it read upstream and the answer built from it passed its budget of bytes: ask for fewer orders or fields at a time) and `OVERLOADED` (the gateway holds all the memory it gives requests in flight: HTTP 503 with `Retry-After`; try again in a moment). Errors are for failures; absence and "not yet" are data: something that does not exist (no vehicle yet, no trade-in) or a part whose stage the order has not reached (`Order.availability` says which, and from when) is null with no error. `NOT_AVAILABLE` is kept for a stage refusal the contract does not foresee.
 *
 * A request refused before anything runs has no `data`, one error and an HTTP status: `GRAPHQL_PARSE_FAILED` / `GRAPHQL_VALIDATION_FAILED` (400, the query limits included), `OPERATION_RESOLUTION_FAILURE` (400, no one operation to run), `BAD_REQUEST` (400, not a GraphQL request the gateway takes), `BAD_USER_INPUT` (400, variables that do not fit), `PERSISTED_QUERY_ONLY` / `PERSISTED_QUERY_NOT_FOUND` / `PERSISTED_QUERY_ID_REQUIRED` (400, trusted documents), `CREDENTIAL_OPERATIONS_LIMIT` (400, more than one `login` or `refreshTokens`), `NOT_ACCEPTABLE` (406, a stream for a client that accepts none), `REQUEST_ENTITY_TOO_LARGE` (413), `UNSUPPORTED_CONTENT_ENCODING` (415, a compressed body), `PREFLIGHT_REQUIRED` (403, a POST a page of another site could send without a CORS preflight), `HOST_NOT_ALLOWED` (421, a Host the gateway does not answer for), `RATE_LIMITED` (429, too many of one caller's operations in flight, on any transport, or too many requests in flight from one address).
 */
export type QueryOrdersArgs = {
  after?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** Live updates, over GraphQL over Server-Sent Events (send the subscription with `Accept: text/event-stream`). The REST service has no events: the gateway polls each customer's order list once per interval however many subscriptions that customer has open, and pushes only what changed. */
export type Subscription = {
  __typename?: 'Subscription';
  /** The caller's orders as they change: first the current state, then one event per change. Requires `Authorization: Bearer <accessToken>`; the upstream must accept the token before any event is sent. When the access token expires the stream ends with an UNAUTHENTICATED error: renew the tokens and subscribe again. An upstream failure arrives as an event with an error (its `extensions.code`) and the stream stays open. */
  orderUpdates: OrderUpdate;
};


/** Live updates, over GraphQL over Server-Sent Events (send the subscription with `Accept: text/event-stream`). The REST service has no events: the gateway polls each customer's order list once per interval however many subscriptions that customer has open, and pushes only what changed. */
export type SubscriptionOrderUpdatesArgs = {
  orderId?: InputMaybe<Scalars['ID']['input']>;
};

/** A tax applied in an estimate. */
export type TaxLine = {
  __typename?: 'TaxLine';
  /** Tax amount, in the estimate's currency. */
  amount: Money;
  /** Machine-readable code of the tax, e.g. `SALES_TAX`. */
  code: Scalars['String']['output'];
  /** Human-readable label of the tax; null when omitted. */
  description?: Maybe<Scalars['String']['output']>;
  /** Tax rate as a fraction, e.g. 0.0415 for 4.15%; null when omitted. */
  rate?: Maybe<Scalars['Float']['output']>;
  /** Amount the tax is computed on; null when omitted. */
  taxableAmount?: Maybe<Money>;
};

/** The tokens returned by `login` and `refreshTokens` (upstream TokenSet). Tokens are JWTs valid for 24 hours; expirations are converted from upstream epoch seconds or milliseconds to DateTime. */
export type TokenSet = {
  __typename?: 'TokenSet';
  /** JWT to send as `Authorization: Bearer <accessToken>` on every request that reads customer data. */
  accessToken: Scalars['String']['output'];
  /** When the access token expires, in UTC (from upstream `accessExpiration`, epoch seconds or milliseconds). */
  accessTokenExpiresAt: Scalars['DateTime']['output'];
  /** Identity JWT describing the customer; null when upstream sends none. */
  idToken?: Maybe<Scalars['String']['output']>;
  /** When the identity token expires, in UTC (from upstream `idExpiration`); null when upstream sends none. */
  idTokenExpiresAt?: Maybe<Scalars['DateTime']['output']>;
  /** Opaque long-lived token to pass to `refreshTokens` to obtain a new token set. */
  refreshToken: Scalars['String']['output'];
};

/** A trade-in attached to the order's reservation, handled by a partner (upstream TradeIn from `GET /partner-trade-in/trade-in-details`). */
export type TradeIn = {
  __typename?: 'TradeIn';
  /** Trade-in identifier. */
  id: Scalars['ID']['output'];
  /** Lender holding the lien on the traded-in vehicle (upstream `payoff.lienHolder`); null when none. */
  lienHolder?: Maybe<Scalars['String']['output']>;
  /** Credit the trade-in contributes to the order after payoff; null when not known yet. */
  netCredit?: Maybe<Money>;
  /** The partner's offer; null until an offer is made. */
  offer?: Maybe<TradeInOffer>;
  /** Name of the trade-in partner; null when omitted. */
  partner?: Maybe<Scalars['String']['output']>;
  /** The partner's own reference for this trade-in; null when omitted. */
  partnerReferenceId?: Maybe<Scalars['String']['output']>;
  /** Outstanding loan to pay off on the traded-in vehicle (upstream `payoff.amount`); null when none. */
  payoffAmount?: Maybe<Money>;
  /** Progress of the trade-in; UNKNOWN for a value this API does not know yet. */
  status: TradeInStatus;
  /** The vehicle being traded in; null when omitted. */
  vehicle?: Maybe<TradeInVehicle>;
};

/** The partner's offer for the trade-in vehicle (upstream `TradeIn.offer`). */
export type TradeInOffer = {
  __typename?: 'TradeInOffer';
  /** Offered amount, in the offer's currency (upstream `offer.currencyCode`). */
  amount: Money;
  /** When the offer expires, in UTC; null when it does not expire or is omitted. */
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
};

/** Progress of a trade-in (upstream `status`). */
export type TradeInStatus =
  /** The trade-in is complete. */
  | 'COMPLETED'
  /** The offer was declined or the trade-in was rejected. */
  | 'DECLINED'
  /** An inspection of the trade-in vehicle has been scheduled. */
  | 'INSPECTION_SCHEDULED'
  /** The trade-in has been created but the customer has not submitted their vehicle yet. */
  | 'NOT_STARTED'
  /** The customer has accepted the offer. */
  | 'OFFER_ACCEPTED'
  /** The vehicle has been submitted and the partner is preparing an offer. */
  | 'OFFER_PENDING'
  /** The partner has made an offer the customer can accept. */
  | 'OFFER_RECEIVED'
  /** An upstream trade-in status this API does not know yet. */
  | 'UNKNOWN';

/** The customer's vehicle being traded in (upstream `TradeIn.vehicle`). */
export type TradeInVehicle = {
  __typename?: 'TradeInVehicle';
  /** Condition of the vehicle as upstream describes it; null when omitted. */
  condition?: Maybe<Scalars['String']['output']>;
  /** Manufacturer, e.g. `Toyota`; null when omitted. */
  make?: Maybe<Scalars['String']['output']>;
  /** Odometer reading in `mileageUnit`; null when omitted. */
  mileage?: Maybe<Scalars['Int']['output']>;
  /** Unit of `mileage` (upstream `mi` or `km`); null when omitted. */
  mileageUnit?: Maybe<DistanceUnit>;
  /** Model name; null when omitted. */
  model?: Maybe<Scalars['String']['output']>;
  /** Trim name; null when omitted. */
  trim?: Maybe<Scalars['String']['output']>;
  /** Vehicle identification number; null when omitted. */
  vin?: Maybe<Scalars['String']['output']>;
  /** Model year, e.g. 2019; null when omitted. */
  year?: Maybe<Scalars['Int']['output']>;
};

/** Production details of the ordered vehicle (upstream VehicleDetails from `GET /vehicle/getDetails`). Values are upstream option codes. */
export type Vehicle = {
  __typename?: 'Vehicle';
  /** Internal digital identifier of the vehicle, e.g. `9999`; null when omitted. */
  digitalId?: Maybe<Scalars['String']['output']>;
  /** Exterior paint code, e.g. `BSB`; null when omitted. */
  exterior?: Maybe<Scalars['String']['output']>;
  /** The words for `exterior` from the operator's labels file, e.g. `Big Sur Blue`; null when `exterior` is null or the file has no label for it (show the code alone). */
  exteriorLabel?: Maybe<Scalars['String']['output']>;
  /** Interior code, e.g. `BL`; null when omitted. */
  interior?: Maybe<Scalars['String']['output']>;
  /** The words for `interior` from the operator's labels file, e.g. `Black`; null when `interior` is null or the file has no label for it (show the code alone). */
  interiorLabel?: Maybe<Scalars['String']['output']>;
  /** When the production details last changed, in UTC; null when omitted. */
  lastUpdatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** Model code, e.g. `OC`. */
  model: Scalars['String']['output'];
  /** The words for `model` from the operator's labels file, e.g. `Ocean`; null when `model` is null or the file has no label for it (show the code alone). */
  modelLabel?: Maybe<Scalars['String']['output']>;
  /** Model year, e.g. 2023 (parsed from the upstream string); null when omitted or not a number. */
  modelYear?: Maybe<Scalars['Int']['output']>;
  /** Country the vehicle is built for sale in, e.g. `US`; null when omitted. */
  salesCountry?: Maybe<Scalars['String']['output']>;
  /** Trim code, e.g. `O1`; null when omitted. */
  trim?: Maybe<Scalars['String']['output']>;
  /** The words for `trim` from the operator's labels file, e.g. `One`; null when `trim` is null or the file has no label for it (show the code alone). */
  trimLabel?: Maybe<Scalars['String']['output']>;
  /** Vehicle identification number, 17 characters, e.g. `VCF1ZBU28PG123456`. */
  vin: Scalars['String']['output'];
  /** Wheel code, e.g. `F3B`; null when omitted. */
  wheel?: Maybe<Scalars['String']['output']>;
  /** The words for `wheel` from the operator's labels file, e.g. `22-inch Black`; null when `wheel` is null or the file has no label for it (show the code alone). */
  wheelLabel?: Maybe<Scalars['String']['output']>;
};

/** A browser's push subscription, as `PushSubscription.toJSON()` gives it. */
export type WebPushSubscriptionInput = {
  /** The browser's authentication secret (`keys.auth`, base64url). */
  auth: Scalars['String']['input'];
  /** The push service's URL (https). */
  endpoint: Scalars['String']['input'];
  /** The browser's P-256 public key (`keys.p256dh`, base64url). */
  p256dh: Scalars['String']['input'];
};

/** A webhook target just added, with its signing secret: shown this once, never again. */
export type WebhookTargetCreated = {
  __typename?: 'WebhookTargetCreated';
  /** The Standard Webhooks signing secret (`whsec_…`): verify each message's `webhook-signature` with it. Keep it now: it is not shown again. */
  secret: Scalars['String']['output'];
  /** The target. */
  target: NotificationTarget;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Address: ResolverTypeWrapper<AddressParentModel>;
  AddressType: AddressType;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Card: ResolverTypeWrapper<Card>;
  Configuration: ResolverTypeWrapper<ConfigurationModel>;
  Customer: ResolverTypeWrapper<UserModel>;
  Date: ResolverTypeWrapper<Scalars['Date']['output']>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Decimal: ResolverTypeWrapper<Scalars['Decimal']['output']>;
  Distance: ResolverTypeWrapper<Distance>;
  DistanceUnit: DistanceUnit;
  Estimate: ResolverTypeWrapper<EstimateModel>;
  FeeType: FeeType;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Money: ResolverTypeWrapper<Money>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  NotificationChannel: NotificationChannel;
  NotificationTarget: ResolverTypeWrapper<NotificationTarget>;
  Notifications: ResolverTypeWrapper<NotificationSettingsModel>;
  Order: ResolverTypeWrapper<OrderModel>;
  OrderChange: ResolverTypeWrapper<OrderChange>;
  OrderEvent: ResolverTypeWrapper<OrderEvent>;
  OrderPart: OrderPart;
  OrderStatus: OrderStatus;
  OrderUpdate: ResolverTypeWrapper<OrderUpdateParentModel>;
  PartAvailability: ResolverTypeWrapper<PartAvailability>;
  Payment: ResolverTypeWrapper<PaymentModel>;
  PaymentStatus: PaymentStatus;
  Pickup: ResolverTypeWrapper<PickupCenterModel>;
  PriceLine: ResolverTypeWrapper<PriceLine>;
  Product: ResolverTypeWrapper<ProductModel>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  TaxLine: ResolverTypeWrapper<TaxLine>;
  TokenSet: ResolverTypeWrapper<TokenSetModel>;
  TradeIn: ResolverTypeWrapper<TradeInParentModel>;
  TradeInOffer: ResolverTypeWrapper<TradeInOffer>;
  TradeInStatus: TradeInStatus;
  TradeInVehicle: ResolverTypeWrapper<TradeInVehicleModel>;
  Vehicle: ResolverTypeWrapper<VehicleDetailsModel>;
  WebPushSubscriptionInput: WebPushSubscriptionInput;
  WebhookTargetCreated: ResolverTypeWrapper<WebhookTargetCreated>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Address: AddressParentModel;
  Boolean: Scalars['Boolean']['output'];
  Card: Card;
  Configuration: ConfigurationModel;
  Customer: UserModel;
  Date: Scalars['Date']['output'];
  DateTime: Scalars['DateTime']['output'];
  Decimal: Scalars['Decimal']['output'];
  Distance: Distance;
  Estimate: EstimateModel;
  Float: Scalars['Float']['output'];
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  Money: Money;
  Mutation: Record<PropertyKey, never>;
  NotificationTarget: NotificationTarget;
  Notifications: NotificationSettingsModel;
  Order: OrderModel;
  OrderChange: OrderChange;
  OrderEvent: OrderEvent;
  OrderUpdate: OrderUpdateParentModel;
  PartAvailability: PartAvailability;
  Payment: PaymentModel;
  Pickup: PickupCenterModel;
  PriceLine: PriceLine;
  Product: ProductModel;
  Query: Record<PropertyKey, never>;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  TaxLine: TaxLine;
  TokenSet: TokenSetModel;
  TradeIn: TradeInParentModel;
  TradeInOffer: TradeInOffer;
  TradeInVehicle: TradeInVehicleModel;
  Vehicle: VehicleDetailsModel;
  WebPushSubscriptionInput: WebPushSubscriptionInput;
  WebhookTargetCreated: WebhookTargetCreated;
};

export type DeferDirectiveArgs = {
  if?: Scalars['Boolean']['input'];
  label?: Maybe<Scalars['String']['input']>;
};

export type DeferDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = DeferDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type StreamDirectiveArgs = {
  if?: Scalars['Boolean']['input'];
  initialCount?: Maybe<Scalars['Int']['input']>;
  label?: Maybe<Scalars['String']['input']>;
};

export type StreamDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = StreamDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type AddressResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Address'] = ResolversParentTypes['Address']> = {
  city?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  country?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  line1?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  line2?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  postalCode?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  primary?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  region?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  type?: Resolver<Maybe<ResolversTypes['AddressType']>, ParentType, ContextType>;
  validated?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
};

export type CardResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Card'] = ResolversParentTypes['Card']> = {
  brand?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expiryDate?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  last4?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ConfigurationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Configuration'] = ResolversParentTypes['Configuration']> = {
  exterior?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  exteriorLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  interior?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  interiorLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trim?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trimLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  wheel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  wheelLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type CustomerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Customer'] = ResolversParentTypes['Customer']> = {
  address?: Resolver<Maybe<ResolversTypes['Address']>, ParentType, ContextType>;
  country?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  createdAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  email?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  emailVerified?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  firstName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  locale?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  orderCount?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  orders?: Resolver<Maybe<Array<ResolversTypes['Order']>>, ParentType, ContextType, RequireFields<CustomerOrdersArgs, 'first'>>;
  phoneNumber?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export interface DateScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Date'], any> {
  name: 'Date';
}

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export interface DecimalScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Decimal'], any> {
  name: 'Decimal';
}

export type DistanceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Distance'] = ResolversParentTypes['Distance']> = {
  unit?: Resolver<ResolversTypes['DistanceUnit'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type EstimateResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Estimate'] = ResolversParentTypes['Estimate']> = {
  amountDue?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  calculatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  credits?: Resolver<Array<ResolversTypes['PriceLine']>, ParentType, ContextType>;
  fees?: Resolver<Array<ResolversTypes['PriceLine']>, ParentType, ContextType>;
  feesTotal?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  isEstimate?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  optionsTotal?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  paidTotal?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  taxTotal?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  taxes?: Resolver<Array<ResolversTypes['TaxLine']>, ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  tradeInCredit?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  vehiclePrice?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
};

export type MoneyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Money'] = ResolversParentTypes['Money']> = {
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  currencyCode?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  addEmailTarget?: Resolver<ResolversTypes['NotificationTarget'], ParentType, ContextType, Partial<MutationAddEmailTargetArgs>>;
  addWebPushTarget?: Resolver<ResolversTypes['NotificationTarget'], ParentType, ContextType, RequireFields<MutationAddWebPushTargetArgs, 'subscription'>>;
  addWebhookTarget?: Resolver<ResolversTypes['WebhookTargetCreated'], ParentType, ContextType, RequireFields<MutationAddWebhookTargetArgs, 'url'>>;
  login?: Resolver<ResolversTypes['TokenSet'], ParentType, ContextType, RequireFields<MutationLoginArgs, 'password' | 'username'>>;
  refreshTokens?: Resolver<ResolversTypes['TokenSet'], ParentType, ContextType, RequireFields<MutationRefreshTokensArgs, 'refreshToken'>>;
  removeNotificationTarget?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationRemoveNotificationTargetArgs, 'id'>>;
  sendTestNotification?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationSendTestNotificationArgs, 'id'>>;
};

export type NotificationTargetResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['NotificationTarget'] = ResolversParentTypes['NotificationTarget']> = {
  channel?: Resolver<ResolversTypes['NotificationChannel'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  disabledAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  disabledReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failingSince?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastDeliveredAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type NotificationsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Notifications'] = ResolversParentTypes['Notifications']> = {
  channels?: Resolver<Array<ResolversTypes['NotificationChannel']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  maxTargets?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  pollIntervalSeconds?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  targets?: Resolver<Array<ResolversTypes['NotificationTarget']>, ParentType, ContextType>;
  webPushPublicKey?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type OrderResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Order'] = ResolversParentTypes['Order']> = {
  addresses?: Resolver<Maybe<Array<ResolversTypes['Address']>>, ParentType, ContextType>;
  availability?: Resolver<Array<ResolversTypes['PartAvailability']>, ParentType, ContextType>;
  buildEditableUntil?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  cancelledAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  completedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  configuration?: Resolver<Maybe<ResolversTypes['Configuration']>, ParentType, ContextType>;
  createdAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  delivered?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  estimate?: Resolver<Maybe<ResolversTypes['Estimate']>, ParentType, ContextType>;
  history?: Resolver<Array<ResolversTypes['OrderEvent']>, ParentType, ContextType, RequireFields<OrderHistoryArgs, 'first'>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  payments?: Resolver<Maybe<Array<ResolversTypes['Payment']>>, ParentType, ContextType, RequireFields<OrderPaymentsArgs, 'feeType'>>;
  pickup?: Resolver<Maybe<ResolversTypes['Pickup']>, ParentType, ContextType>;
  product?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType>;
  rawStatus?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reservationId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  shippingAddress?: Resolver<Maybe<ResolversTypes['Address']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['OrderStatus'], ParentType, ContextType>;
  tradeIn?: Resolver<Maybe<ResolversTypes['TradeIn']>, ParentType, ContextType>;
  updatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  vehicle?: Resolver<Maybe<ResolversTypes['Vehicle']>, ParentType, ContextType>;
};

export type OrderChangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderChange'] = ResolversParentTypes['OrderChange']> = {
  field?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  from?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  to?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type OrderEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderEvent'] = ResolversParentTypes['OrderEvent']> = {
  changes?: Resolver<Array<ResolversTypes['OrderChange']>, ParentType, ContextType>;
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  observedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type OrderUpdateResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderUpdate'] = ResolversParentTypes['OrderUpdate']> = {
  changes?: Resolver<Array<ResolversTypes['OrderChange']>, ParentType, ContextType>;
  observedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  order?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
};

export type PartAvailabilityResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PartAvailability'] = ResolversParentTypes['PartAvailability']> = {
  available?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  from?: Resolver<ResolversTypes['OrderStatus'], ParentType, ContextType>;
  part?: Resolver<ResolversTypes['OrderPart'], ParentType, ContextType>;
};

export type PaymentResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Payment'] = ResolversParentTypes['Payment']> = {
  amount?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  card?: Resolver<Maybe<ResolversTypes['Card']>, ParentType, ContextType>;
  createdAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  feeType?: Resolver<ResolversTypes['FeeType'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  method?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  paidAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  refundable?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['PaymentStatus'], ParentType, ContextType>;
};

export type PickupResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Pickup'] = ResolversParentTypes['Pickup']> = {
  address?: Resolver<Maybe<ResolversTypes['Address']>, ParentType, ContextType>;
  available?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  distance?: Resolver<Maybe<ResolversTypes['Distance']>, ParentType, ContextType>;
  earliestPickupDate?: Resolver<Maybe<ResolversTypes['Date']>, ParentType, ContextType>;
  email?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  latitude?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  locationId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  longitude?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  phone?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  timeZone?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type PriceLineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PriceLine'] = ResolversParentTypes['PriceLine']> = {
  amount?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  code?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ProductResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Product'] = ResolversParentTypes['Product']> = {
  country?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  deliveryFees?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  model?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  modelLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  msrp?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  preorderFee?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  trim?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trimLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  me?: Resolver<Maybe<ResolversTypes['Customer']>, ParentType, ContextType>;
  notifications?: Resolver<ResolversTypes['Notifications'], ParentType, ContextType>;
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<QueryOrderArgs, 'id'>>;
  orders?: Resolver<Maybe<Array<ResolversTypes['Order']>>, ParentType, ContextType, RequireFields<QueryOrdersArgs, 'first'>>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  orderUpdates?: SubscriptionResolver<ResolversTypes['OrderUpdate'], "orderUpdates", ParentType, ContextType, Partial<SubscriptionOrderUpdatesArgs>>;
};

export type TaxLineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TaxLine'] = ResolversParentTypes['TaxLine']> = {
  amount?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  code?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  rate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  taxableAmount?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
};

export type TokenSetResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TokenSet'] = ResolversParentTypes['TokenSet']> = {
  accessToken?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  accessTokenExpiresAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  idToken?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  idTokenExpiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  refreshToken?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type TradeInResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TradeIn'] = ResolversParentTypes['TradeIn']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lienHolder?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  netCredit?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  offer?: Resolver<Maybe<ResolversTypes['TradeInOffer']>, ParentType, ContextType>;
  partner?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  partnerReferenceId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  payoffAmount?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['TradeInStatus'], ParentType, ContextType>;
  vehicle?: Resolver<Maybe<ResolversTypes['TradeInVehicle']>, ParentType, ContextType>;
};

export type TradeInOfferResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TradeInOffer'] = ResolversParentTypes['TradeInOffer']> = {
  amount?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type TradeInVehicleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TradeInVehicle'] = ResolversParentTypes['TradeInVehicle']> = {
  condition?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  make?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  mileage?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  mileageUnit?: Resolver<Maybe<ResolversTypes['DistanceUnit']>, ParentType, ContextType>;
  model?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trim?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  vin?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  year?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type VehicleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Vehicle'] = ResolversParentTypes['Vehicle']> = {
  digitalId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  exterior?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  exteriorLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  interior?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  interiorLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastUpdatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  modelLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  modelYear?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  salesCountry?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trim?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  trimLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  vin?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  wheel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  wheelLabel?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type WebhookTargetCreatedResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookTargetCreated'] = ResolversParentTypes['WebhookTargetCreated']> = {
  secret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  target?: Resolver<ResolversTypes['NotificationTarget'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  Address?: AddressResolvers<ContextType>;
  Card?: CardResolvers<ContextType>;
  Configuration?: ConfigurationResolvers<ContextType>;
  Customer?: CustomerResolvers<ContextType>;
  Date?: GraphQLScalarType;
  DateTime?: GraphQLScalarType;
  Decimal?: GraphQLScalarType;
  Distance?: DistanceResolvers<ContextType>;
  Estimate?: EstimateResolvers<ContextType>;
  Money?: MoneyResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  NotificationTarget?: NotificationTargetResolvers<ContextType>;
  Notifications?: NotificationsResolvers<ContextType>;
  Order?: OrderResolvers<ContextType>;
  OrderChange?: OrderChangeResolvers<ContextType>;
  OrderEvent?: OrderEventResolvers<ContextType>;
  OrderUpdate?: OrderUpdateResolvers<ContextType>;
  PartAvailability?: PartAvailabilityResolvers<ContextType>;
  Payment?: PaymentResolvers<ContextType>;
  Pickup?: PickupResolvers<ContextType>;
  PriceLine?: PriceLineResolvers<ContextType>;
  Product?: ProductResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  TaxLine?: TaxLineResolvers<ContextType>;
  TokenSet?: TokenSetResolvers<ContextType>;
  TradeIn?: TradeInResolvers<ContextType>;
  TradeInOffer?: TradeInOfferResolvers<ContextType>;
  TradeInVehicle?: TradeInVehicleResolvers<ContextType>;
  Vehicle?: VehicleResolvers<ContextType>;
  WebhookTargetCreated?: WebhookTargetCreatedResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = GraphQLContext> = {
  defer?: DeferDirectiveResolver<any, any, ContextType>;
  stream?: StreamDirectiveResolver<any, any, ContextType>;
};
