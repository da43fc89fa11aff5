// The simulator's operations over the seeded data: the contract's responses, its 401s, 404s and
// stage rules, and an ownership check only where the real service has one. Every per-order
// operation is one handler, driven by its contract row (parameters, ownership, stage) and its
// records in data.ts.
import {
  CONTRACT,
  CUSTOMER_LEVEL_OPERATIONS,
  isActiveAt,
  PER_ORDER_OPERATIONS,
  type CustomerLevelOperation,
  type OperationName,
  type OrderKey,
  type PerOrderOperation,
} from '../upstream/contract.js';
import type { Order } from '../upstream/models.js';
import { CUSTOMER_RECORDS, PER_ORDER_RECORDS, type NotFound, type SeedData } from './data.js';
import { orderNotFound, requireBodyStrings, requireParams, SimulatedError, unauthorized, type Call, type Reply } from './request.js';
import type { TokenIssuer } from './tokens.js';

/** What the handlers serve from: the live seed data and the token issuer. */
export interface World {
  data: SeedData;
  issuer: TokenIssuer;
}

type Handler = (world: World, call: Call) => Promise<Reply> | Reply;

const ok = (body: unknown): Reply => ({ status: 200, body });

/** What the service calls an order by each of its fields, in a 404's message. */
const ORDER_KEY_NAMES: Record<OrderKey, string> = { id: 'order', reservationId: 'reservation' };

/** The order a call names by its parameters (every field it names must match), else 404 ORDER_NOT_FOUND. */
function namedOrder(data: SeedData, named: Partial<Record<OrderKey, string>>): Order {
  const keys = Object.keys(named) as OrderKey[];
  const order = data.orders.find((candidate) => keys.every((key) => candidate[key] === named[key]));
  if (order) return order;
  const name = keys.map((key) => `${ORDER_KEY_NAMES[key]} ${named[key]}`).join(' with ');
  throw orderNotFound(`${name.charAt(0).toUpperCase()}${name.slice(1)} not found`);
}

function assertOwner(call: Call, order: Order) {
  if (order.userId !== call.userId) {
    throw new SimulatedError(403, 'FORBIDDEN', `Order ${order.id} does not belong to the authenticated user`);
  }
}

function assertActive(operation: PerOrderOperation, order: Order) {
  if (!isActiveAt(operation, order.status)) {
    const { stageRefusal = `${operation} is` } = CONTRACT[operation] as { stageRefusal?: string };
    throw new SimulatedError(409, 'ORDER_STAGE_NOT_ELIGIBLE', `${stageRefusal} not available for order status ${order.status}`);
  }
}

/**
 * A per-order operation as its contract row says: its parameters checked (400), the order
 * they name found (404), its owner checked where the service checks it (403), its stage (409),
 * then what data.ts holds for it (a record's absence is its own 404).
 */
function perOrder(operation: PerOrderOperation): Handler {
  const { checksOwner } = CONTRACT[operation] as { checksOwner?: true };
  const record = PER_ORDER_RECORDS[operation] as {
    find: (data: SeedData, order: Order, args: Readonly<Record<string, string>>) => unknown;
    missing?: (order: Order) => NotFound;
  };
  return ({ data }, call) => {
    const { order: named, argument } = requireParams(call);
    const order = namedOrder(data, named);
    if (checksOwner) assertOwner(call, order);
    assertActive(operation, order);
    const body = record.find(data, order, argument);
    if (body !== undefined) return ok(body);
    const { code, message } = record.missing!(order);
    throw new SimulatedError(404, code, message);
  };
}

/** A customer-level operation: its arguments checked (400), then what data.ts holds for the caller (a record's absence is its own 404). */
function perCustomer(operation: CustomerLevelOperation): Handler {
  const record = CUSTOMER_RECORDS[operation] as {
    find: (data: SeedData, userId: string, args: Readonly<Record<string, string>>) => unknown;
    missing?: (userId: string) => NotFound;
  };
  return ({ data }, call) => {
    const { argument } = requireParams(call);
    const body = record.find(data, call.userId, argument);
    if (body !== undefined) return ok(body);
    const { code, message } = record.missing!(call.userId);
    throw new SimulatedError(404, code, message);
  };
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

export const HANDLERS: Record<OperationName, Handler> = {
  login,
  refreshTokens,
  customerDetails,
  orderDetails,
  ...(Object.fromEntries(PER_ORDER_OPERATIONS.map((operation) => [operation, perOrder(operation)])) as Record<PerOrderOperation, Handler>),
  ...(Object.fromEntries(CUSTOMER_LEVEL_OPERATIONS.map((operation) => [operation, perCustomer(operation)])) as Record<
    CustomerLevelOperation,
    Handler
  >),
};

/** Whether an operation takes the caller's access token (and so answers 401 without a valid one). */
export const takesAccessToken = (operation: OperationName) => CONTRACT[operation].auth === 'access';
