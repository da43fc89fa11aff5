// The simulator's ten operations over the seeded data: the contract's answers, its 401s,
// 404s and stage rules, and no ownership check where the real service has none.
import { CONTRACT, isActiveAt, type OperationName } from '../upstream/contract.js';
import type { Order } from '../upstream/models.js';
import type { SeedData } from './data.js';
import {
  orderNotFound,
  requireBodyStrings,
  requireParams,
  SimulatedError,
  unauthorized,
  validationError,
  type Call,
  type Reply,
} from './request.js';
import type { TokenIssuer } from './tokens.js';

/** What the handlers serve from: the live seed data and the token issuer. */
export interface World {
  data: SeedData;
  issuer: TokenIssuer;
}

type Handler = (world: World, call: Call) => Promise<Reply> | Reply;

const ok = (body: unknown): Reply => ({ status: 200, body });

/** What the 409 message calls each stage-bound operation's feature. */
const FEATURE: Partial<Record<OperationName, string>> = {
  vehicleProductionDetails: 'Vehicle production details are',
  nearestPickupCenter: 'Pickup scheduling is',
  priceEstimate: 'Price estimate is',
};

function findOrder({ data }: World, orderId = ''): Order {
  const order = data.orders.find((candidate) => candidate.id === orderId);
  if (!order) throw orderNotFound(`Order ${orderId} not found`);
  return order;
}

function assertOwner(call: Call, order: Order) {
  if (order.userId !== call.userId) {
    throw new SimulatedError(403, 'FORBIDDEN', `Order ${order.id} does not belong to the authenticated user`);
  }
}

function assertActive(call: Call, order: Order) {
  if (!isActiveAt(call.operation, order.status)) {
    throw new SimulatedError(
      409,
      'ORDER_STAGE_NOT_ELIGIBLE',
      `${FEATURE[call.operation] ?? `${call.operation} is`} not available for order status ${order.status}`,
    );
  }
}

async function login({ data, issuer }: World, call: Call): Promise<Reply> {
  const [username, password] = requireBodyStrings(call, ['username', 'password']) as [string, string];
  const account = data.users.find((candidate) => candidate.username.toLowerCase() === username.trim().toLowerCase());
  if (!account || account.password !== password) throw new SimulatedError(401, 'INVALID_CREDENTIALS', 'Incorrect username or password');
  return ok(await issuer.issueTokenSet(account.user));
}

/** The bearer is the caller's access token (expired is fine) or, lacking one, the refresh token itself. */
async function refreshTokens({ data, issuer }: World, call: Call): Promise<Reply> {
  if (call.bearer === null) throw unauthorized('UNAUTHORIZED', 'Missing bearer token');
  const [refreshToken] = requireBodyStrings(call, ['refresh_token']) as [string];
  const spent = () => unauthorized('invalid_grant', 'Refresh token is invalid or has already been used');
  let bearerUser = issuer.refreshTokenOwner(call.bearer);
  if (call.bearer === refreshToken && bearerUser === null) throw spent();
  if (bearerUser === null) {
    if (call.check === null || call.check.kind === 'invalid') throw unauthorized('UNAUTHORIZED', 'Invalid bearer token');
    bearerUser = call.check.userId;
  }
  const owner = issuer.refreshTokenOwner(refreshToken);
  if (owner === null) throw spent();
  if (owner !== bearerUser) throw unauthorized('invalid_grant', 'Refresh token was not issued to this user');
  const account = data.users.find((candidate) => candidate.user.id === owner);
  if (!account) throw unauthorized('invalid_grant', 'The user of this refresh token no longer exists');
  issuer.consumeRefreshToken(refreshToken);
  return ok(await issuer.issueTokenSet(account.user));
}

function customerDetails({ data }: World, call: Call): Reply {
  const account = data.users.find((candidate) => candidate.user.id === call.userId);
  if (!account) throw unauthorized('UNAUTHORIZED', 'The user of this token no longer exists');
  return ok(account.user);
}

const orderDetails = ({ data }: World, call: Call): Reply => ok(data.orders.filter((order) => order.userId === call.userId));

function vehicleProductionDetails({ data }: World, call: Call): Reply {
  const { id: orderId = '', reservationId = '' } = requireParams(call).order;
  const order = data.orders.find((candidate) => candidate.id === orderId);
  if (!order || order.reservationId !== reservationId) throw orderNotFound(`Order ${orderId} with reservation ${reservationId} not found`);
  assertOwner(call, order);
  assertActive(call, order);
  const vehicle = data.vehicleDetails.find((candidate) => candidate.orderId === order.id);
  if (!vehicle) throw new SimulatedError(404, 'VEHICLE_NOT_FOUND', `No vehicle has been assigned to order ${order.id} yet`);
  return ok(vehicle);
}

function nearestPickupCenter(world: World, call: Call): Reply {
  const order = findOrder(world, requireParams(call).order.id);
  assertActive(call, order);
  const center = world.data.pickupCenters.find((candidate) => candidate.orderId === order.id);
  if (!center) throw new SimulatedError(404, 'PICKUP_CENTER_NOT_FOUND', `No pickup centre assigned to order ${order.id}`);
  return ok(center);
}

function priceEstimate(world: World, call: Call): Reply {
  const order = findOrder(world, requireParams(call).order.id);
  assertOwner(call, order);
  assertActive(call, order);
  const estimate = world.data.estimates.find((candidate) => candidate.orderId === order.id);
  if (!estimate) throw new SimulatedError(404, 'ESTIMATE_NOT_FOUND', `No estimate for order ${order.id}`);
  return ok(estimate);
}

function shippingAddresses(world: World, call: Call): Reply {
  const order = findOrder(world, requireParams(call).order.id);
  return ok(world.data.addresses.filter((address) => address.orderId === order.id));
}

function orderPayments(world: World, call: Call): Reply {
  const { order: named, argument } = requireParams(call);
  const feeType = argument.feeType;
  if (feeType !== 'ORDER_FEE') throw validationError('fee_type must be one of: ORDER_FEE');
  const order = findOrder(world, named.id);
  return ok(world.data.payments.filter((payment) => payment.orderId === order.id && payment.feeType === feeType));
}

function tradeInDetails({ data }: World, call: Call): Reply {
  const { reservationId = '' } = requireParams(call).order;
  const order = data.orders.find((candidate) => candidate.reservationId === reservationId);
  if (!order) throw orderNotFound(`Reservation ${reservationId} not found`);
  assertOwner(call, order);
  const tradeIn = data.tradeIns.find((candidate) => candidate.reservationId === reservationId);
  if (!tradeIn) throw new SimulatedError(404, 'TRADE_IN_NOT_FOUND', `No trade-in for reservation ${reservationId}`);
  return ok(tradeIn);
}

export const HANDLERS: Record<OperationName, Handler> = {
  login,
  refreshTokens,
  customerDetails,
  orderDetails,
  vehicleProductionDetails,
  nearestPickupCenter,
  priceEstimate,
  shippingAddresses,
  orderPayments,
  tradeInDetails,
};

/** Whether an operation takes the caller's access token (and so answers 401 without a valid one). */
export const takesAccessToken = (operation: OperationName) => CONTRACT[operation].auth === 'access';
