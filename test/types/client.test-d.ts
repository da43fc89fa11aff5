// Type-level tests: checked by `npm run typecheck` (tsc), not run by vitest.
import { expectTypeOf } from 'vitest';
import type { OrderStatus, PaymentStatus } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderResult, type Tokens } from '../../src/client/index.js';

const client = createOrderClient({ endpoint: 'http://127.0.0.1:4000/graphql' });

export async function typed() {
  const whole = await client.wholeOrder();
  const order = whole.data!.me!.orders![0]!;

  // A selected field has its exact nullable type.
  expectTypeOf(order.vehicle).toEqualTypeOf<{
    vin: string;
    model: string;
    modelLabel: string | null;
    modelYear: number | null;
    trim: string | null;
    trimLabel: string | null;
    exterior: string | null;
    exteriorLabel: string | null;
    interior: string | null;
    interiorLabel: string | null;
    wheel: string | null;
    wheelLabel: string | null;
    salesCountry: string | null;
    digitalId: string | null;
    lastUpdatedAt: string | null;
  } | null>();
  expectTypeOf(order.estimate!.amountDue).toEqualTypeOf<{ amount: string; currencyCode: string }>();
  expectTypeOf(order.estimate!.tradeInCredit).toEqualTypeOf<{ amount: string; currencyCode: string } | null>();
  expectTypeOf(order.delivered).toEqualTypeOf<boolean>();
  expectTypeOf(whole.data!.me!.email).toEqualTypeOf<string | null>();

  // Enums are string unions.
  expectTypeOf(order.status).toEqualTypeOf<OrderStatus>();
  expectTypeOf<OrderStatus>().toEqualTypeOf<
    | 'BUILD_LOCKED'
    | 'CANCELLED'
    | 'DELIVERED'
    | 'IN_PRODUCTION'
    | 'IN_TRANSIT'
    | 'ORDER_CONFIRMED'
    | 'ORDER_PENDING_PAYMENT'
    | 'READY_FOR_PICKUP'
    | 'RESERVED'
    | 'UNKNOWN'
  >();
  expectTypeOf(order.payments![0]!.status).toEqualTypeOf<PaymentStatus>();
  expectTypeOf<'SUCCEEDED'>().toMatchTypeOf<PaymentStatus>();

  // An unselected field is a compile error: OrderSummary selects no vehicle, Me no orders.
  const summary = await client.orderSummary();
  // @ts-expect-error vehicle is not selected by OrderSummary
  summary.data?.orders?.[0]?.vehicle;
  const me = await client.me();
  // @ts-expect-error orders is not selected by Me
  me.data?.me?.orders;

  // Variables are typed too.
  // @ts-expect-error order(id) takes a string id
  await client.order(42);

  expectTypeOf(client.login).returns.resolves.toEqualTypeOf<Tokens>();
  expectTypeOf(summary).toEqualTypeOf<OrderResult<NonNullable<typeof summary.data>>>();
}
