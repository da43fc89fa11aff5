/**
 * The simulator's seeded world: demo customers, their orders and everything the upstream
 * operations serve about them, with what each per-order operation answers for an order
 * (PER_ORDER_RECORDS) and each customer-level one for a customer (CUSTOMER_RECORDS). Deterministic (fixed ids, dates and amounts) and coherent: estimate
 * totals add up, each order's deliveryAddress is its primary DELIVERY address, paymentId
 * names its successful order-fee payment, tradeinId its trade-in.
 */
import type { CustomerLevelOperation, PerOrderOperation } from '../upstream/contract.js';
import type { Address, Estimate, Order, Payment, PickupCenter, PostalAddress, TradeIn, User, VehicleDetails } from '../upstream/models.js';
import type { ResponseOf } from '../upstream/shapes.js';

/** A demo account: the `/auth/me` model plus its login and a few words about its stage. */
export interface SeedUser {
  username: string;
  password: string;
  /** Printed at start-up next to the credentials, e.g. "one order, READY_FOR_PICKUP, with a trade-in". */
  description: string;
  /** Exactly what `/auth/me` answers for this account. */
  user: User;
}

/**
 * Everything the simulator serves, as plain arrays of upstream models. The server looks
 * things up here on every request, so a test may change this data and see the change.
 */
export interface SeedData {
  users: SeedUser[];
  /** `/v2/order/user` answers the orders whose userId is the caller's, in this order. */
  orders: Order[];
  /** By orderId; an eligible order without an entry answers 404 (vehicle not assigned yet). */
  vehicleDetails: VehicleDetails[];
  /** The nearest-centre response per order (by orderId). */
  pickupCenters: PickupCenter[];
  /** By orderId. */
  estimates: Estimate[];
  /** `/order-address/findAll` answers the entries of that order, in this order. */
  addresses: Address[];
  /** `/order-payments` answers the entries of that order and fee type, in this order. */
  payments: Payment[];
  /** By reservationId. */
  tradeIns: TradeIn[];
}

/** What the service answers 404 with when it holds nothing for an order: its code and message. */
export interface NotFound {
  code: string;
  message: string;
}

type Find<O extends PerOrderOperation, Absent> = (
  data: SeedData,
  order: Order,
  args: Readonly<Record<string, string>>,
) => ResponseOf<O> | Absent;

/**
 * What the service holds for one per-order operation: the body for an order (and the call's
 * arguments, by the GraphQL argument each comes from). A list is never absent (it is empty);
 * a record is, and then the call answers 404 with `missing`.
 */
export type PerOrderRecord<O extends PerOrderOperation> =
  ResponseOf<O> extends unknown[] ? { find: Find<O, never> } : { find: Find<O, undefined>; missing: (order: Order) => NotFound };

/** Each per-order operation's body for an order, read from the live data (a test or a move may change it). */
export const PER_ORDER_RECORDS: { [O in PerOrderOperation]: PerOrderRecord<O> } = {
  vehicleProductionDetails: {
    find: (data, order) => data.vehicleDetails.find((vehicle) => vehicle.orderId === order.id),
    missing: (order) => ({ code: 'VEHICLE_NOT_FOUND', message: `No vehicle has been assigned to order ${order.id} yet` }),
  },
  nearestPickupCenter: {
    find: (data, order) => data.pickupCenters.find((center) => center.orderId === order.id),
    missing: (order) => ({ code: 'PICKUP_CENTER_NOT_FOUND', message: `No pickup centre assigned to order ${order.id}` }),
  },
  priceEstimate: {
    find: (data, order) => data.estimates.find((estimate) => estimate.orderId === order.id),
    missing: (order) => ({ code: 'ESTIMATE_NOT_FOUND', message: `No estimate for order ${order.id}` }),
  },
  shippingAddresses: { find: (data, order) => data.addresses.filter((address) => address.orderId === order.id) },
  orderPayments: {
    find: (data, order, { feeType }) => data.payments.filter((payment) => payment.orderId === order.id && payment.feeType === feeType),
  },
  tradeInDetails: {
    find: (data, order) => data.tradeIns.find((tradeIn) => tradeIn.reservationId === order.reservationId),
    missing: (order) => ({ code: 'TRADE_IN_NOT_FOUND', message: `No trade-in for reservation ${order.reservationId}` }),
  },
};

/**
 * What the service holds for one customer-level operation: the body for the caller (by its
 * user id, and the call's arguments). A list is never absent; a record is, and then the call
 * answers 404 with `missing`.
 */
export type CustomerRecord<O extends CustomerLevelOperation> =
  ResponseOf<O> extends unknown[]
    ? { find: (data: SeedData, userId: string, args: Readonly<Record<string, string>>) => ResponseOf<O> }
    : {
        find: (data: SeedData, userId: string, args: Readonly<Record<string, string>>) => ResponseOf<O> | undefined;
        missing: (userId: string) => NotFound;
      };

/** Each customer-level operation's body for a customer, read from the live data. */
export const CUSTOMER_RECORDS: { [O in CustomerLevelOperation]: CustomerRecord<O> } = {};

const US = 'United States';

const ids = {
  users: {
    early: '2775fc1e-83da-4e4e-92a2-7ad0e2cf7847',
    confirmed: '6e383f0a-6c69-4c6d-8ce6-7f7b5b1af1c6',
    production: '05235556-b675-44ec-90a5-2c6ba3364e8a',
    ready: '654909c8-0226-49e2-9d15-00f7e26babfe',
    twoOrders: '73e414ee-2924-4936-9118-03e5f1bf5079',
    cancelled: '0124a284-5921-429f-a70d-7f22cefd1f11',
    noOrders: '44eace49-1de9-4bd8-bbfe-6ad6c8bb747a',
  },
  orders: {
    early: 'b2fc858e-8a06-4919-ac73-327cfffc33a3',
    confirmed: '8df30a96-e5ea-4810-9653-331f5f30c97b',
    production: 'c446fd30-6c33-4e1c-b992-ebe53df8932e',
    ready: '92c33f44-7538-4b97-92c3-fc2ac978b9a9',
    transit: '6edc385c-b481-494f-a2a1-a332df76d2de',
    delivered: 'c23994d1-19dd-4ee3-840c-31d9a0d6fa73',
    cancelled: 'd3d27c88-22d4-4232-ac80-6a45df093fcf',
  },
  reservations: {
    early: 'OC-RWMTK',
    confirmed: 'OC-HZQPL',
    production: 'OC-BTNVD',
    ready: 'OC-ACBDE',
    transit: 'OC-PXJRF',
    delivered: 'OC-GMSKV',
    cancelled: 'OC-LQWZD',
  },
  configurations: {
    early: 'b1ab283f-8078-4920-b4ee-ab72d4c57c6c',
    confirmed: 'a6f0daa9-0019-48c2-9280-81118f104794',
    production: '7f3edcf8-4e15-465f-8df0-754db8c37a3c',
    ready: '632b605b-d9d2-4d7b-a7ff-5931a8fe06d8',
    transit: 'd9fcee82-dd8c-4402-890a-03c3e68ae32f',
    delivered: 'e7e5e648-823a-4861-832e-c1861f3a7c07',
    cancelled: '4bde2a8c-0b05-41fa-952a-fe3f3f869395',
  },
  addresses: {
    early: 'ec279c6d-504e-45cc-be83-8c8e1a5463f5',
    confirmedDelivery: '7e403a76-3444-44b9-90f6-c982546d66ca',
    confirmedBilling: 'c0d695ca-8d82-4974-9405-d2d49313001a',
    production: '0e26dd2d-ff49-46d9-98a8-a2d9ed8fd64e',
    readyOldDelivery: '990e579f-e8fc-4fde-9f08-4ee027d10d63',
    readyDelivery: '8cf58c59-8bae-4d20-8f14-94a58085b0f5',
    readyBilling: '562f850d-557f-4cec-9114-eeac131f0b5d',
    transitDelivery: 'b58dfcad-e81b-4474-a04d-05b427344c6b',
    transitRegistration: '0a2e6420-5fda-431a-8443-eb4806f96116',
    delivered: '0111e498-1b24-4bbf-8694-a7bf8ad9e8f3',
    cancelled: '196dd47b-6ec3-4bd1-8f1c-991799db33e0',
  },
  payments: {
    early: '52f9736b-892f-4995-912e-ede3c5a7271f',
    confirmed: 'c0abac0a-d9d2-41e8-846b-1b0050f785dd',
    production: 'b374800c-460c-42a1-b137-8d8f98f2aa44',
    ready: '0f610384-d8d8-4ce2-933e-03fbf9fbab19',
    readyRefunded: 'b432f49e-b4b9-4a26-b50b-306e60f51de2',
    transit: 'dce7d80a-ee65-4870-ad8b-15fa6a1d2edf',
    delivered: '33389039-5edb-4ba6-8eca-b974bf027dcc',
    cancelled: '5b38e0c6-a7d9-4836-a4c8-51d954ad7014',
  },
  tradeIns: {
    ready: '86a06919-da6b-4d97-b719-21e14580e4b8',
  },
} as const;

/** A new, independent copy of the seeded world (nothing is shared between calls). */
export function createSeedData(): SeedData {
  const addresses = createAddresses();
  const primaryDelivery = (orderId: string): Address => {
    const found = addresses.find((a) => a.orderId === orderId && a.addressType === 'DELIVERY' && a.primary);
    if (!found) throw new Error(`seed data: order ${orderId} has no primary DELIVERY address`);
    return structuredClone(found);
  };
  return {
    users: createUsers(),
    orders: createOrders(primaryDelivery),
    vehicleDetails: createVehicleDetails(),
    pickupCenters: createPickupCenters(),
    estimates: createEstimates(),
    addresses,
    payments: createPayments(),
    tradeIns: createTradeIns(),
  };
}

function createUsers(): SeedUser[] {
  const user = (
    id: string,
    email: string,
    firstName: string,
    lastName: string,
    phoneNumber: string | null,
    country: string,
    locale: string,
    address: PostalAddress,
    createdAt: string,
    updatedAt: string,
  ): User => ({
    id,
    email,
    emailVerified: true,
    firstName,
    lastName,
    phoneNumber,
    country,
    locale,
    address,
    createdAt,
    updatedAt,
  });
  return [
    {
      username: 'early@demo.test',
      password: 'demo-password-1',
      description: 'one order, RESERVED: most operations inactive',
      user: {
        ...user(
          ids.users.early,
          'early@demo.test',
          'Avery',
          'Collins',
          null,
          'US',
          'en-US',
          { address1: '1420 NW Market St', address2: 'Apt 3B', city: 'Seattle', region: 'WA', zipcode: '98107', country: US },
          '2026-10-05T17:38:52.204Z',
          '2026-10-05T17:38:52.204Z',
        ),
        // Signed up moments before reserving: the address is not verified yet.
        emailVerified: false,
      },
    },
    {
      username: 'confirmed@demo.test',
      password: 'demo-password-2',
      description: 'one order, ORDER_CONFIRMED, in Germany (EUR): estimate only',
      user: user(
        ids.users.confirmed,
        'confirmed@demo.test',
        'Lena',
        'Hoffmann',
        '+491701234567',
        'DE',
        'de-DE',
        { address1: 'Leopoldstraße 112', address2: null, city: 'München', region: 'BY', zipcode: '80804', country: 'Germany' },
        '2026-06-11T08:14:37.560Z',
        '2026-09-02T12:40:03.118Z',
      ),
    },
    {
      username: 'production@demo.test',
      password: 'demo-password-3',
      description: 'one order, IN_PRODUCTION: vehicle and estimate, no pickup yet',
      user: user(
        ids.users.production,
        'production@demo.test',
        'Marcus',
        'Reed',
        '+15125550188',
        'US',
        'en-US',
        { address1: '2211 S Lamar Blvd', address2: null, city: 'Austin', region: 'TX', zipcode: '78704-4935', country: US },
        '2026-03-22T19:05:11.947Z',
        '2026-08-30T10:21:45.002Z',
      ),
    },
    {
      username: 'ready@demo.test',
      password: 'demo-password-4',
      description: 'one order, READY_FOR_PICKUP, with a trade-in: everything available',
      user: user(
        ids.users.ready,
        'ready@demo.test',
        'Sofia',
        'Alvarez',
        '+13105550123',
        'US',
        'en-US',
        { address1: '2840 Sawtelle Blvd', address2: 'Unit 204', city: 'Los Angeles', region: 'CA', zipcode: '90064-4203', country: US },
        '2026-02-14T17:55:20.031Z',
        '2026-10-28T16:12:09.774Z',
      ),
    },
    {
      username: 'two-orders@demo.test',
      password: 'demo-password-5',
      description: 'two orders: one IN_TRANSIT, one DELIVERED',
      user: user(
        ids.users.twoOrders,
        'two-orders@demo.test',
        'Daniel',
        'Kim',
        '+12015550176',
        'US',
        'en-US',
        { address1: '48 Maple Ave', address2: null, city: 'Ridgewood', region: 'NJ', zipcode: '07450', country: US },
        '2025-11-20T14:02:48.390Z',
        '2026-05-03T11:47:16.205Z',
      ),
    },
    {
      username: 'cancelled@demo.test',
      password: 'demo-password-6',
      description: 'one order, CANCELLED (fee refunded): every stage-bound operation inactive',
      user: user(
        ids.users.cancelled,
        'cancelled@demo.test',
        'Noah',
        'Bennett',
        '+17205550164',
        'US',
        'en-US',
        { address1: '3390 Tejon St', address2: null, city: 'Denver', region: 'CO', zipcode: '80211', country: US },
        '2026-04-02T21:16:05.812Z',
        '2026-07-09T09:03:27.441Z',
      ),
    },
    {
      username: 'no-orders@demo.test',
      password: 'demo-password-7',
      description: 'no orders yet',
      user: user(
        ids.users.noOrders,
        'no-orders@demo.test',
        'Priya',
        'Shah',
        '+16175550142',
        'US',
        'en-US',
        { address1: '75 Kirkland St', address2: null, city: 'Cambridge', region: 'MA', zipcode: '02138', country: US },
        '2026-11-19T15:27:58.663Z',
        '2026-11-19T15:27:58.663Z',
      ),
    },
  ];
}

function createAddresses(): Address[] {
  return [
    {
      id: ids.addresses.early,
      orderId: ids.orders.early,
      address1: '1420 NW Market St',
      address2: 'Apt 3B',
      city: 'Seattle',
      region: 'WA',
      zipcode: '98107',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-10-05T17:42:11.318Z',
      updatedAt: '2026-10-05T17:42:11.318Z',
    },
    {
      id: ids.addresses.confirmedDelivery,
      orderId: ids.orders.confirmed,
      address1: 'Leopoldstraße 112',
      address2: null,
      city: 'München',
      region: 'BY',
      zipcode: '80804',
      country: 'Germany',
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-06-11T08:21:09.734Z',
      updatedAt: '2026-06-11T08:21:09.734Z',
    },
    {
      id: ids.addresses.confirmedBilling,
      orderId: ids.orders.confirmed,
      address1: 'Hoffmann Architektur GmbH',
      address2: 'Schellingstraße 45',
      city: 'München',
      region: 'BY',
      zipcode: '80799',
      country: 'Germany',
      addressType: 'BILLING',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-06-11T08:21:09.734Z',
      updatedAt: '2026-09-02T12:40:03.118Z',
    },
    {
      id: ids.addresses.production,
      orderId: ids.orders.production,
      address1: '2211 S Lamar Blvd',
      address2: null,
      city: 'Austin',
      region: 'TX',
      zipcode: '78704-4935',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-03-22T19:09:40.155Z',
      updatedAt: '2026-03-22T19:09:40.155Z',
    },
    // The ready order lists its old, non-primary delivery address first: the shipping
    // address is the primary DELIVERY one, not the first DELIVERY one.
    {
      id: ids.addresses.readyOldDelivery,
      orderId: ids.orders.ready,
      address1: '915 Wilshire Blvd',
      address2: 'Apt 12',
      city: 'Santa Monica',
      region: 'CA',
      zipcode: '90401',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: false,
      isActive: true,
      createdAt: '2026-02-14T18:01:33.420Z',
      updatedAt: '2026-07-19T20:44:12.006Z',
    },
    {
      id: ids.addresses.readyDelivery,
      orderId: ids.orders.ready,
      address1: '2840 Sawtelle Blvd',
      address2: 'Unit 204',
      city: 'Los Angeles',
      region: 'CA',
      zipcode: '90064-4203',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-07-19T20:44:12.006Z',
      updatedAt: '2026-07-19T20:44:12.006Z',
    },
    {
      id: ids.addresses.readyBilling,
      orderId: ids.orders.ready,
      address1: '2840 Sawtelle Blvd',
      address2: 'Unit 204',
      city: 'Los Angeles',
      region: 'CA',
      zipcode: '90064-4203',
      country: US,
      addressType: 'BILLING',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-07-19T20:45:02.881Z',
      updatedAt: '2026-07-19T20:45:02.881Z',
    },
    {
      id: ids.addresses.transitDelivery,
      orderId: ids.orders.transit,
      address1: '48 Maple Ave',
      address2: null,
      city: 'Ridgewood',
      region: 'NJ',
      zipcode: '07450',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2026-05-03T11:52:37.129Z',
      updatedAt: '2026-05-03T11:52:37.129Z',
    },
    {
      id: ids.addresses.transitRegistration,
      orderId: ids.orders.transit,
      address1: '48 Maple Ave',
      address2: null,
      city: 'Ridgewood',
      region: 'NJ',
      zipcode: '07450',
      country: US,
      addressType: 'REGISTRATION',
      validated: false,
      primary: true,
      isActive: true,
      createdAt: '2026-10-14T09:30:18.570Z',
      updatedAt: '2026-10-14T09:30:18.570Z',
    },
    {
      id: ids.addresses.delivered,
      orderId: ids.orders.delivered,
      address1: '48 Maple Ave',
      address2: null,
      city: 'Ridgewood',
      region: 'NJ',
      zipcode: '07450',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: true,
      createdAt: '2025-11-20T14:09:55.683Z',
      updatedAt: '2025-11-20T14:09:55.683Z',
    },
    {
      id: ids.addresses.cancelled,
      orderId: ids.orders.cancelled,
      address1: '3390 Tejon St',
      address2: null,
      city: 'Denver',
      region: 'CO',
      zipcode: '80211',
      country: US,
      addressType: 'DELIVERY',
      validated: true,
      primary: true,
      isActive: false,
      createdAt: '2026-04-02T21:20:41.297Z',
      updatedAt: '2026-07-09T09:03:27.441Z',
    },
  ];
}

function createOrders(primaryDelivery: (orderId: string) => Address): Order[] {
  const usProduct = (trim: string, msrp: number, preorderFee: number) => ({
    id: `ocean-${trim.toLowerCase()}-us-2026`,
    country: US,
    preorderFee,
    msrp,
    deliveryFees: 2438,
    currencyCode: 'USD',
    model: 'OCEAN',
    trim,
  });
  const order = (
    key: keyof typeof ids.orders,
    fields: Omit<Order, 'id' | 'reservationId' | 'deliveryAddress' | 'deliveryAddressId' | 'configurationId'>,
  ): Order => {
    const deliveryAddress = primaryDelivery(ids.orders[key]);
    return {
      id: ids.orders[key],
      reservationId: ids.reservations[key],
      ...fields,
      deliveryAddressId: deliveryAddress.id,
      configurationId: ids.configurations[key],
      deliveryAddress,
    };
  };
  return [
    order('early', {
      userId: ids.users.early,
      paymentId: ids.payments.early,
      status: 'RESERVED',
      applicationSource: 'WEB',
      editBuildExpirationDate: '2027-01-31T23:59:59.000Z',
      editBuildQuarter: 'Q2 2027',
      createdAt: '2026-10-05T17:42:11.318Z',
      updatedAt: '2026-10-05T17:43:02.551Z',
      cancelledAt: null,
      completedAt: null,
      centerPlusLocationId: 'cp-sea-01',
      tradeinId: null,
      vehicleDelivered: false,
      product: usProduct('SPORT', 38999, 250),
      configuration: { id: ids.configurations.early, exterior: 'MWH', interior: 'GR', wheel: 'F2A', trim: 'SP' },
    }),
    order('confirmed', {
      userId: ids.users.confirmed,
      paymentId: ids.payments.confirmed,
      status: 'ORDER_CONFIRMED',
      applicationSource: 'IOS',
      editBuildExpirationDate: '2026-12-15T22:59:59.000Z',
      editBuildQuarter: 'Q1 2027',
      createdAt: '2026-06-11T08:21:09.734Z',
      updatedAt: '2026-09-02T12:40:03.118Z',
      cancelledAt: null,
      completedAt: null,
      centerPlusLocationId: 'cp-muc-01',
      tradeinId: null,
      vehicleDelivered: false,
      product: {
        id: 'ocean-ultra-de-2026',
        country: 'Germany',
        preorderFee: 250,
        msrp: 59900,
        deliveryFees: 1090,
        currencyCode: 'EUR',
        model: 'OCEAN',
        trim: 'ULTRA',
      },
      configuration: { id: ids.configurations.confirmed, exterior: 'SGR', interior: 'LT', wheel: 'F2S', trim: 'UL' },
    }),
    order('production', {
      userId: ids.users.production,
      paymentId: ids.payments.production,
      status: 'IN_PRODUCTION',
      applicationSource: 'WEB',
      editBuildExpirationDate: '2026-09-30T23:59:59.000Z',
      editBuildQuarter: 'Q4 2026',
      createdAt: '2026-03-22T19:09:40.155Z',
      updatedAt: '2026-11-18T09:27:44.913Z',
      cancelledAt: null,
      completedAt: null,
      centerPlusLocationId: 'cp-aus-01',
      tradeinId: null,
      vehicleDelivered: false,
      product: usProduct('EXTREME', 61499, 250),
      configuration: { id: ids.configurations.production, exterior: 'EGR', interior: 'GR', wheel: 'F3B', trim: 'EX' },
    }),
    order('ready', {
      userId: ids.users.ready,
      paymentId: ids.payments.ready,
      status: 'READY_FOR_PICKUP',
      applicationSource: 'WEB',
      editBuildExpirationDate: '2026-06-30T23:59:59.000Z',
      editBuildQuarter: 'Q3 2026',
      createdAt: '2026-02-14T18:01:33.420Z',
      updatedAt: '2026-11-20T15:08:27.612Z',
      cancelledAt: null,
      completedAt: null,
      centerPlusLocationId: 'cp-lax-01',
      tradeinId: ids.tradeIns.ready,
      vehicleDelivered: false,
      product: usProduct('ONE', 68999, 5000),
      configuration: { id: ids.configurations.ready, exterior: 'BSB', interior: 'BL', wheel: 'F3B', trim: 'O1' },
    }),
    order('transit', {
      userId: ids.users.twoOrders,
      paymentId: ids.payments.transit,
      status: 'IN_TRANSIT',
      applicationSource: 'ANDROID',
      editBuildExpirationDate: '2026-08-31T23:59:59.000Z',
      editBuildQuarter: 'Q4 2026',
      createdAt: '2026-05-03T11:52:37.129Z',
      updatedAt: '2026-11-17T22:10:05.348Z',
      cancelledAt: null,
      completedAt: null,
      centerPlusLocationId: 'cp-ewr-01',
      tradeinId: null,
      vehicleDelivered: false,
      product: usProduct('ULTRA', 49999, 250),
      configuration: { id: ids.configurations.transit, exterior: 'GBK', interior: 'BL', wheel: 'F2S', trim: 'UL' },
    }),
    order('delivered', {
      userId: ids.users.twoOrders,
      paymentId: ids.payments.delivered,
      status: 'DELIVERED',
      applicationSource: 'WEB',
      editBuildExpirationDate: '2026-02-28T23:59:59.000Z',
      editBuildQuarter: 'Q2 2026',
      createdAt: '2025-11-20T14:09:55.683Z',
      updatedAt: '2026-08-22T15:30:00.000Z',
      cancelledAt: null,
      completedAt: '2026-08-22T15:30:00.000Z',
      centerPlusLocationId: 'cp-ewr-01',
      tradeinId: null,
      vehicleDelivered: true,
      product: usProduct('SPORT', 38999, 250),
      configuration: { id: ids.configurations.delivered, exterior: 'MWH', interior: 'LT', wheel: 'F2A', trim: 'SP' },
    }),
    order('cancelled', {
      userId: ids.users.cancelled,
      paymentId: ids.payments.cancelled,
      status: 'CANCELLED',
      applicationSource: 'IOS',
      editBuildExpirationDate: null,
      editBuildQuarter: null,
      createdAt: '2026-04-02T21:20:41.297Z',
      updatedAt: '2026-07-09T09:03:27.441Z',
      cancelledAt: '2026-07-09T09:03:27.441Z',
      completedAt: null,
      centerPlusLocationId: null,
      tradeinId: null,
      vehicleDelivered: false,
      product: usProduct('EXTREME', 61499, 250),
      configuration: { id: ids.configurations.cancelled, exterior: 'BSB', interior: 'GR', wheel: 'F3B', trim: 'EX' },
    }),
  ];
}

function createVehicleDetails(): VehicleDetails[] {
  const vehicle = (
    key: keyof typeof ids.orders,
    vin: string,
    codes: { exterior: string; interior: string; wheel: string; trim: string },
    lastUpdatedAt: string,
  ): VehicleDetails => ({
    ...codes,
    lastUpdatedAt,
    model: 'OC',
    modelYear: '2026',
    orderId: ids.orders[key],
    reservationId: ids.reservations[key],
    salesCountry: 'US',
    vin,
    digitalId: vin.slice(-4),
  });
  return [
    vehicle('production', 'VCF1EBU29TG004217', { exterior: 'EGR', interior: 'GR', wheel: 'F3B', trim: 'EX' }, '2026-11-18T09:27:44.913Z'),
    vehicle('ready', 'VCF1ZBU26TG001893', { exterior: 'BSB', interior: 'BL', wheel: 'F3B', trim: 'O1' }, '2026-11-20T15:08:27.612Z'),
    vehicle('transit', 'VCF1UBU24TG006542', { exterior: 'GBK', interior: 'BL', wheel: 'F2S', trim: 'UL' }, '2026-11-17T22:10:05.348Z'),
    vehicle('delivered', 'VCF1SBU25TG008127', { exterior: 'MWH', interior: 'LT', wheel: 'F2A', trim: 'SP' }, '2026-08-22T15:30:00.000Z'),
  ];
}

function createPickupCenters(): PickupCenter[] {
  const paramus = {
    centerPlusLocationId: 'cp-ewr-01',
    name: 'Center Plus Paramus',
    address: { address1: '200 NJ-17', address2: null, city: 'Paramus', region: 'NJ', zipcode: '07652', country: US },
    latitude: 40.9445,
    longitude: -74.0721,
    timeZone: 'America/New_York',
    phone: '+12015550100',
    email: 'paramus.centerplus@demo.test',
  };
  return [
    {
      orderId: ids.orders.ready,
      centerPlusLocationId: 'cp-lax-01',
      name: 'Center Plus Los Angeles',
      address: { address1: '11800 W Olympic Blvd', address2: null, city: 'Los Angeles', region: 'CA', zipcode: '90064', country: US },
      latitude: 34.0336,
      longitude: -118.4466,
      timeZone: 'America/Los_Angeles',
      distance: { value: 12.4, unit: 'mi' },
      phone: '+13105550142',
      email: 'la.centerplus@demo.test',
      pickupAvailable: true,
      earliestPickupDate: '2026-11-27',
    },
    {
      orderId: ids.orders.transit,
      ...structuredClone(paramus),
      distance: { value: 8.7, unit: 'mi' },
      pickupAvailable: false,
      earliestPickupDate: '2026-12-09',
    },
    {
      orderId: ids.orders.delivered,
      ...structuredClone(paramus),
      distance: { value: 8.7, unit: 'mi' },
      pickupAvailable: false,
      earliestPickupDate: null,
    },
  ];
}

function createEstimates(): Estimate[] {
  const usFees = (delivery: number, documentation: number, registration: number) => [
    { code: 'DELIVERY_FEE', description: 'Destination and delivery', amount: delivery },
    { code: 'DOCUMENTATION_FEE', description: 'Documentation fee', amount: documentation },
    { code: 'REGISTRATION_FEE', description: 'Title, registration and plates', amount: registration },
  ];
  return [
    {
      orderId: ids.orders.confirmed,
      currencyCode: 'EUR',
      vehiclePrice: 50336.13,
      optionsTotal: 1680,
      fees: [
        { code: 'DELIVERY_FEE', description: 'Überführung und Auslieferung', amount: 1090 },
        { code: 'REGISTRATION_FEE', description: 'Zulassung und Kennzeichen', amount: 160 },
      ],
      feesTotal: 1250,
      taxes: [{ code: 'VAT', description: 'Mehrwertsteuer 19 %', rate: 0.19, taxableAmount: 53266.13, amount: 10120.56 }],
      taxTotal: 10120.56,
      credits: [],
      tradeInCredit: 0,
      total: 63386.69,
      paidTotal: 250,
      amountDue: 63136.69,
      isEstimate: true,
      calculatedAt: '2026-11-21T06:00:00.000Z',
    },
    {
      orderId: ids.orders.production,
      currencyCode: 'USD',
      vehiclePrice: 61499,
      optionsTotal: 1250,
      fees: usFees(2438, 150, 345.25),
      feesTotal: 2933.25,
      taxes: [{ code: 'SALES_TAX', description: 'Texas motor vehicle sales tax', rate: 0.0625, taxableAmount: 65187, amount: 4074.19 }],
      taxTotal: 4074.19,
      credits: [],
      tradeInCredit: 0,
      total: 69756.44,
      paidTotal: 250,
      amountDue: 69506.44,
      isEstimate: true,
      calculatedAt: '2026-11-21T06:00:00.000Z',
    },
    {
      orderId: ids.orders.ready,
      currencyCode: 'USD',
      vehiclePrice: 68999,
      optionsTotal: 0,
      fees: usFees(2438, 85, 512),
      feesTotal: 3035,
      taxes: [
        { code: 'SALES_TAX', description: 'Los Angeles County sales tax', rate: 0.095, taxableAmount: 71522, amount: 6794.59 },
        { code: 'TIRE_FEE', description: 'California tire fee', amount: 7 },
      ],
      taxTotal: 6801.59,
      credits: [
        { code: 'TRADE_IN_CREDIT', description: 'Trade-in net credit (2018 Audi Q5)', amount: 18500 },
        { code: 'REFERRAL_CREDIT', description: 'Referral credit', amount: 1000 },
      ],
      tradeInCredit: 18500,
      total: 59335.59,
      paidTotal: 5000,
      amountDue: 54335.59,
      isEstimate: true,
      calculatedAt: '2026-11-21T06:00:00.000Z',
    },
    {
      orderId: ids.orders.transit,
      currencyCode: 'USD',
      vehiclePrice: 49999,
      optionsTotal: 2500,
      fees: usFees(2438, 599, 268.5),
      feesTotal: 3305.5,
      taxes: [{ code: 'SALES_TAX', description: 'New Jersey sales tax', rate: 0.06625, taxableAmount: 55536, amount: 3679.26 }],
      taxTotal: 3679.26,
      credits: [{ code: 'LOYALTY_CREDIT', description: 'Returning customer credit', amount: 500 }],
      tradeInCredit: 0,
      total: 58983.76,
      paidTotal: 250,
      amountDue: 58733.76,
      isEstimate: true,
      calculatedAt: '2026-11-21T06:00:00.000Z',
    },
    {
      orderId: ids.orders.delivered,
      currencyCode: 'USD',
      vehiclePrice: 38999,
      optionsTotal: 1000,
      fees: usFees(2438, 599, 268.5),
      feesTotal: 3305.5,
      taxes: [{ code: 'SALES_TAX', description: 'New Jersey sales tax', rate: 0.06625, taxableAmount: 43036, amount: 2851.14 }],
      taxTotal: 2851.14,
      credits: [],
      tradeInCredit: 0,
      total: 46155.64,
      paidTotal: 46155.64,
      amountDue: 0,
      isEstimate: false,
      calculatedAt: '2026-08-22T15:30:00.000Z',
    },
  ];
}

function createPayments(): Payment[] {
  return [
    {
      id: ids.payments.early,
      orderId: ids.orders.early,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'USD',
      status: 'SUCCEEDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'VISA', last4: '4242', expiryDate: '09/2029' },
      refundable: true,
      transactionReference: 'ch_3QeA7rKx2hT9mN4p1aB0early',
      paidAt: '2026-10-05T17:43:02.551Z',
      createdAt: '2026-10-05T17:42:58.106Z',
    },
    {
      id: ids.payments.confirmed,
      orderId: ids.orders.confirmed,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'EUR',
      status: 'SUCCEEDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'MASTERCARD', last4: '5454', expiryDate: '03/2028' },
      refundable: true,
      transactionReference: 'ch_3PxD2wLm8sQ1vB7c0cONFRMD',
      paidAt: '2026-06-11T08:23:44.270Z',
      createdAt: '2026-06-11T08:23:40.018Z',
    },
    {
      id: ids.payments.production,
      orderId: ids.orders.production,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'USD',
      status: 'SUCCEEDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'AMEX', last4: '1005', expiryDate: '11/2027' },
      refundable: false,
      transactionReference: 'ch_3OqT5nHc4rW6yJ2k9PRODCTN',
      paidAt: '2026-03-22T19:11:02.884Z',
      createdAt: '2026-03-22T19:10:57.319Z',
    },
    {
      id: ids.payments.ready,
      orderId: ids.orders.ready,
      feeType: 'ORDER_FEE',
      amount: 5000,
      currencyCode: 'USD',
      status: 'SUCCEEDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'VISA', last4: '4242', expiryDate: '08/2028' },
      refundable: false,
      transactionReference: 'ch_3NwR8pGd6tY3uK5m2READY01',
      paidAt: '2026-02-14T18:03:17.902Z',
      createdAt: '2026-02-14T18:03:12.455Z',
    },
    // A duplicate charge (the pay button pressed twice), refunded the next day.
    {
      id: ids.payments.readyRefunded,
      orderId: ids.orders.ready,
      feeType: 'ORDER_FEE',
      amount: 5000,
      currencyCode: 'USD',
      status: 'REFUNDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'VISA', last4: '4242', expiryDate: '08/2028' },
      refundable: false,
      transactionReference: 'ch_3NwR8qGd6tY3uK5m7READY02',
      paidAt: '2026-02-14T18:03:21.337Z',
      createdAt: '2026-02-14T18:03:19.640Z',
    },
    {
      id: ids.payments.transit,
      orderId: ids.orders.transit,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'USD',
      status: 'SUCCEEDED',
      paymentMethod: 'DEBIT_CARD',
      card: { brand: 'VISA', last4: '0077', expiryDate: '05/2030' },
      refundable: false,
      transactionReference: 'ch_3PkM1vFb9wX4zL8n6TRANST1',
      paidAt: '2026-05-03T11:54:08.761Z',
      createdAt: '2026-05-03T11:54:03.212Z',
    },
    {
      id: ids.payments.delivered,
      orderId: ids.orders.delivered,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'USD',
      status: 'SUCCEEDED',
      paymentMethod: 'PAYPAL',
      card: null,
      refundable: false,
      transactionReference: 'PAYID-NCZ4H7Q2DELIVRD8K31',
      paidAt: '2025-11-20T14:11:39.005Z',
      createdAt: '2025-11-20T14:11:30.874Z',
    },
    {
      id: ids.payments.cancelled,
      orderId: ids.orders.cancelled,
      feeType: 'ORDER_FEE',
      amount: 250,
      currencyCode: 'USD',
      status: 'REFUNDED',
      paymentMethod: 'CREDIT_CARD',
      card: { brand: 'DISCOVER', last4: '1117', expiryDate: '12/2027' },
      refundable: false,
      transactionReference: 'ch_3OzB6tJe5qV2xN9r4CANCLD1',
      paidAt: '2026-04-02T21:22:15.649Z',
      createdAt: '2026-04-02T21:22:10.083Z',
    },
  ];
}

function createTradeIns(): TradeIn[] {
  return [
    {
      id: ids.tradeIns.ready,
      reservationId: ids.reservations.ready,
      orderId: ids.orders.ready,
      partner: 'DriveWise Trade-In',
      partnerReferenceId: 'DW-2026-118734',
      status: 'OFFER_ACCEPTED',
      vehicle: {
        vin: 'WA1BNAFY8J2012345',
        year: 2018,
        make: 'Audi',
        model: 'Q5',
        trim: 'Premium Plus',
        mileage: 48210,
        mileageUnit: 'mi',
        condition: 'GOOD',
      },
      offer: { amount: 24500, currencyCode: 'USD', expiresAt: '2026-12-15T07:59:59.000Z' },
      payoff: { lienHolder: 'First Harbor Auto Credit', amount: 6000 },
      netCredit: 18500,
      createdAt: '2026-09-08T16:40:22.517Z',
      updatedAt: '2026-10-28T16:12:09.774Z',
    },
  ];
}
