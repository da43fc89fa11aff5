// The order-tracker page as a customer meets it, in Debian's Chromium, at desktop and phone
// width, against the gateway on the simulator: sign in, the whole order with every part,
// then the demo's order moved by the simulator's own advance URL and the change shown, with
// a new entry in the history, without a reload; for every demo customer, everything the
// page's query answers shown (each amount of the estimate, each payment's fee, each option
// code named), a card per stage-gated part the order's availability lists and per other object
// or list the query selects (from the schema and the query, test/helpers/tracker-page.ts), one
// without a view of its own laid out from its data, each part its stage has not reached saying
// when it comes, and, for one customer, a part whose call failed
// saying so, with a retry that reads it again; the page checked with axe-core and the keyboard.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVAILABLE_FROM } from '../../src/graph/order-fields.js';
import type { Simulator } from '../../src/simulator/server.js';
import { canHaveValue, ORDER_STAGES } from '../../src/upstream/contract.js';
import { haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoCustomer, demoOrders, DEMO_USERNAMES } from '../helpers/demo.js';
import type { TestGateway } from '../helpers/harness.js';
import {
  buildTrackerPage,
  gatedField,
  startTrackerGateway,
  trackerCards,
  TRACKER_SCRIPT_LIMIT,
  trackerOrders,
  trackerScriptBytes,
  type TrackerOrder,
} from '../helpers/tracker-page.js';

const SCREENSHOTS = new URL('../../test-results/', import.meta.url);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const READY = 'ready@demo.test';

let folder: string;
let simulator: Simulator;
let gateway: TestGateway;
let browser: Browser;

beforeAll(async () => {
  folder = await buildTrackerPage(mkdtempSync(join(tmpdir(), 'tracker-page-')));
  if (!haveBrowser) return;
  ({ simulator, gateway } = await startTrackerGateway(folder));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await simulator?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Opens the page, counting what the browser reports: errors (CSP refusals included) and the order query's answers. */
async function open(width: number) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  const deferredAnswers: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (response.url().endsWith('/graphql') && type.startsWith('multipart/mixed')) deferredAnswers.push(type);
  });
  await page.goto(`${gateway.origin}/tracker/`, { waitUntil: 'load' });
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  return { page, problems, deferredAnswers };
}

const part = (page: Page, field: string) => page.locator(`[data-part="${field}"]`);
const events = (page: Page) => page.locator('.timeline .event').count();
const currentStage = (page: Page) => page.locator('.progress li[aria-current="step"] .label').innerText();

/** What the page's own query answers the demo customer now, read through the SDK. */
const ordersOf = (username: string) => trackerOrders(gateway.endpoint, username, demoCustomer(simulator, username).password);

/** Waits until the page shows the whole of these orders: every part arrived, the history read, every card of each order there. */
async function wholeOrders(page: Page, orders: readonly TrackerOrder[]) {
  // No orders is an answer too: until it comes, the page says it is loading and shows no order either.
  if (orders.length === 0) await expect.poll(() => page.locator('main').innerText(), { timeout: 30_000 }).toContain('No orders yet.');
  await expect.poll(() => page.locator('.part[aria-busy="true"], .timeline[aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
  await expect.poll(() => page.locator('.order').count()).toBe(orders.length);
  await expect.poll(() => page.locator('.part').count()).toBe(orders.reduce((sum, order) => sum + trackerCards(order).length, 0));
}

/** Signs in as a demo customer with the page's form. */
async function submitSignIn(page: Page, username: string) {
  const index = await page
    .locator('select[name="demo"] option')
    .evaluateAll((options, name) => options.findIndex((option) => option.textContent?.startsWith(`${name} `)), username);
  await page.getByLabel('Demo customer').selectOption(String(index));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in as a demo customer and waits for the whole order; returns the orders as the page's query answers them. */
async function signIn(page: Page, username: string) {
  await submitSignIn(page, username);
  const orders = await ordersOf(username);
  await wholeOrders(page, orders);
  return orders;
}

/** axe-core's findings on the whole page, of every impact. */
async function axeViolations(page: Page) {
  // Run through the DevTools protocol, so the page's CSP (no inline script) stays as it is.
  await page.evaluate(AXE);
  const violations = await page.evaluate(
    async () =>
      (
        await (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }
        ).axe.run()
      ).violations,
  );
  return violations.map((violation) => `${violation.id} (${violation.impact}, ${violation.nodes.length})`);
}

/** Every amount in a value of the page's query (Money: an amount and its currency), by its path: `fees.0.amount`, `total`. */
function amounts(value: unknown, path: string[] = []): { field: string; amount: string; currencyCode: string }[] {
  if (value === null || typeof value !== 'object') return [];
  const { amount, currencyCode } = value as { amount?: unknown; currencyCode?: unknown };
  if (typeof amount === 'string' && typeof currencyCode === 'string') return [{ field: path.join('.'), amount, currencyCode }];
  return Object.entries(value).flatMap(([key, inner]) => amounts(inner, [...path, key]));
}

/** A part's rows as the page shows them: each label with its value. */
const rows = (card: Locator) =>
  card
    .locator(':scope > dl > .row')
    .evaluateAll((found) => found.map((row) => [row.querySelector('dt')!.textContent, row.querySelector('dd')!.textContent]));

/** An enum value as the page writes it in words: ORDER_FEE, "Order fee". */
const words = (code: string) => code.charAt(0) + code.slice(1).toLowerCase().replaceAll('_', ' ');

/** A field's name as the page labels it: postalCode, "Postal code". */
const fieldLabel = (field: string) => words(field.replace(/([a-z\d])([A-Z])/g, '$1_$2').toUpperCase());

/** A part with no view of its own against its value: a list item by item, each object's fields as its lines, under their names, in the query's order, its text as it is. */
async function expectLaidOut(card: Locator, value: unknown) {
  const items = Array.isArray(value) ? (value as Record<string, unknown>[]) : [value as Record<string, unknown>];
  const lists = Array.isArray(value) ? card.locator(':scope > ul.items > li > dl') : card.locator(':scope > dl');
  expect(await lists.count()).toBe(items.length);
  for (const [i, item] of items.entries()) {
    const shown = await rows(lists.nth(i).locator('xpath=..'));
    expect(shown.map(([label]) => label)).toEqual(Object.keys(item).map(fieldLabel));
    for (const [j, inner] of Object.values(item).entries())
      if (typeof inner === 'string' && !/^[A-Z\d_]+$|^\d{4}-/.test(inner)) expect(shown[j]![1]).toBe(inner);
  }
}

/** The price card against the estimate: each amount it holds, at the estimate's field, its exact value and its text in the reader's locale (a credit taken off). */
async function expectPriceCard(page: Page, card: Locator, estimate: NonNullable<Extract<TrackerOrder, { estimate: unknown }>['estimate']>) {
  const shown = await card
    .locator('data[data-field]')
    .evaluateAll((found) =>
      found.map((data) => ({ field: (data as HTMLElement).dataset.field, value: (data as HTMLDataElement).value, text: data.textContent })),
    );
  const expected = [];
  for (const { field, amount, currencyCode } of amounts(estimate)) {
    const text = await page.evaluate(
      ([amount, currency]) => new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(amount)),
      [amount, currencyCode] as const,
    );
    expected.push({ field, value: amount, text: field.startsWith('credits.') ? `−${text}` : text });
  }
  expect(shown.sort((a, b) => a.field!.localeCompare(b.field!))).toEqual(expected.sort((a, b) => a.field.localeCompare(b.field)));
  // Each fee, tax and credit under its own name.
  const labels = (await rows(card)).map(([label]) => label);
  for (const line of [...estimate.fees, ...estimate.taxes, ...estimate.credits])
    expect(labels.some((label) => label?.startsWith(line.description ?? words(line.code)))).toBe(true);
}

/** One order's card against the order as the page's query answers it: every part, each code labelled for what it is. */
async function expectOrder(page: Page, order: TrackerOrder) {
  const article = page.locator('.order').filter({ has: page.getByRole('heading', { level: 2, name: order.reservationId }) });
  const part = (field: string) => article.locator(`.part[data-part="${field}"]`);
  const labels = await article.locator('.progress li .label').allInnerTexts();
  // The order record, a card per stage-gated part the order's availability lists, in its order, then one per other part the query selects, and no other.
  expect(await article.locator('.part').evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.part))).toEqual(
    trackerCards(order),
  );
  expect(
    await article.locator('.part[data-gated]').evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.part)),
  ).toEqual(order.availability.map(({ part }) => gatedField(part)));
  const values = order as TrackerOrder & Record<string, unknown>;
  for (const field of await article
    .locator('.part[data-generic]')
    .evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.part!))) {
    const value = values[field];
    if (value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)) await expectLaidOut(part(field), value);
  }
  for (const { part: name, from, available } of order.availability) {
    const text = await part(gatedField(name)).innerText();
    if (available) expect(text, name).not.toMatch(/Available from|cancelled/);
    else if (order.status === 'CANCELLED') expect(text, name).toContain('Not for a cancelled order.');
    else expect(text, name).toContain(`Available from the “${labels[ORDER_STAGES.indexOf(from as never)]}” stage.`);
  }
  const dash = (value: string | number | null | undefined) => (value === null || value === undefined ? '—' : String(value));
  // A code with its words where the gateway has them, else the code alone.
  const coded = (code: string | null | undefined, label: string | null | undefined) => (code && label ? `${label} (${code})` : dash(code));
  expect(await rows(part('order'))).toEqual(
    expect.arrayContaining([
      ['Model', coded(order.product?.model, order.product?.modelLabel)],
      ['Trim', coded(order.product?.trim, order.product?.trimLabel)],
      ['Exterior', coded(order.configuration?.exterior, order.configuration?.exteriorLabel)],
      ['Interior', coded(order.configuration?.interior, order.configuration?.interiorLabel)],
      ['Wheels', coded(order.configuration?.wheel, order.configuration?.wheelLabel)],
    ]),
  );
  if ('vehicle' in order && order.vehicle) {
    const { vehicle } = order;
    expect(await rows(part('vehicle'))).toEqual(
      expect.arrayContaining([
        ['Model year', dash(vehicle.modelYear)],
        ['Model', coded(vehicle.model, vehicle.modelLabel)],
        ['Trim', coded(vehicle.trim, vehicle.trimLabel)],
        ['Exterior', coded(vehicle.exterior, vehicle.exteriorLabel)],
        ['Interior', coded(vehicle.interior, vehicle.interiorLabel)],
        ['Wheels', coded(vehicle.wheel, vehicle.wheelLabel)],
        ['VIN', vehicle.vin],
      ]),
    );
  }
  if ('estimate' in order && order.estimate) await expectPriceCard(page, part('estimate'), order.estimate);
  const payments = 'payments' in order ? (order.payments ?? []) : [];
  const shownPayments = await part('payments').locator('li').allInnerTexts();
  expect(shownPayments).toHaveLength(payments.length);
  payments.forEach((payment, i) => expect(shownPayments[i]).toContain(`${words(payment.feeType)}: `));
  payments.forEach((payment, i) => expect(shownPayments[i]).toContain(`, ${payment.status.toLowerCase()}`));
}

describe.skipIf(!haveBrowser)('the order-tracker page in Chromium', () => {
  it(`ships under ${TRACKER_SCRIPT_LIMIT / 1000} kB of JavaScript, gzipped`, () => {
    const { raw, gzipped } = trackerScriptBytes(folder);
    console.info(`order tracker: ${raw} bytes of JavaScript, ${gzipped} gzipped`);
    expect(gzipped).toBeLessThan(TRACKER_SCRIPT_LIMIT);
  });

  it.each([1280, 390])(
    'at %i px: the whole order, then a move of the demo order shown live with a new history entry, no reload',
    async (width) => {
      const { page, problems, deferredAnswers } = await open(width);
      mkdirSync(SCREENSHOTS, { recursive: true });

      const [order] = await signIn(page, READY);
      const vin = simulator.data.vehicleDetails.find((vehicle) => vehicle.reservationId === 'OC-ACBDE')!.vin;
      // Every part there: the order record, each stage-gated part (all reached), each other part the query selects.
      for (const field of trackerCards(order!))
        expect([field, await part(page, field).getAttribute('data-state')]).toEqual([field, 'shown']);
      // One at least laid out from its data, with no view of its own.
      expect(await page.locator('.part[data-generic][data-state="shown"]').count()).toBeGreaterThan(0);
      expect(await part(page, 'vehicle').innerText()).toContain(vin);
      expect(await part(page, 'pickup').innerText()).toContain('Center Plus Los Angeles');
      expect(await part(page, 'estimate').innerText()).toMatch(/Paid[\s\S]*Due/);
      expect(await part(page, 'tradeIn').innerText()).toMatch(/Offer expires/);
      expect(await currentStage(page)).toBe('Ready for pickup');
      expect(await page.locator('.progress .next').innerText()).toBe('Now: Ready for pickup. Next: Delivered.');
      expect(await events(page)).toBeGreaterThan(0);
      // The order came as one streamed (@defer) answer.
      expect(deferredAnswers).toHaveLength(1);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: new URL(`tracker-whole-order-${width}.png`, SCREENSHOTS).pathname, fullPage: true });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, simulator.moving!.username);
      await expect.poll(() => page.locator('.bar .live').innerText(), { timeout: 30_000 }).toMatch(/^Live/);
      const before = await events(page);
      const stageBefore = await currentStage(page);
      // The demo's own mechanism: the URL npm start's banner prints.
      const move = (await (await fetch(simulator.moving!.advanceUrl, { method: 'POST' })).json()) as { from: string; to: string };
      const stageName = (status: string) => status.charAt(0) + status.slice(1).toLowerCase().replaceAll('_', ' ');
      await expect
        .poll(() => page.locator('.notes').innerText(), { timeout: 30_000 })
        .toContain(`Stage: ${stageName(move.from)} → ${stageName(move.to)}`);
      await expect.poll(() => currentStage(page), { timeout: 30_000 }).toBe(stageName(move.to));
      expect(stageName(move.from)).toBe(stageBefore);
      await expect.poll(() => events(page), { timeout: 30_000 }).toBe(before + 1);
      expect(await page.locator('.timeline .event').first().innerText()).toContain(
        `Stage: ${stageName(move.from)} → ${stageName(move.to)}`,
      );
      // Still the page it was: the whole move arrived without a navigation, with one deferred answer per reading.
      expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1);

      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: new URL(`tracker-live-${width}.png`, SCREENSHOTS).pathname, fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  /**
   * The customer whose load also has a part fail: its vehicle's call answers 500 (a simulator
   * fault), before the vehicle's stage. The page must say the part failed, not that it comes
   * later, and its retry must read it again once the fault is cleared.
   */
  const FAILING = { username: 'confirmed@demo.test', field: 'vehicle', operation: 'vehicleProductionDetails' } as const;

  /** Signs in as FAILING with its part failing: its card says so and offers a retry, which once the fault is cleared reads the order again. */
  async function signInWithFailedPart(page: Page) {
    const { username, field, operation } = FAILING;
    const [order] = demoOrders(simulator, username);
    const calls = () => simulator.requestLog.filter((entry) => entry.operation === operation && entry.orderIds.includes(order!.id)).length;
    const card = part(page, field);
    simulator.setFault(operation, '500');
    try {
      await submitSignIn(page, username);
      await expect.poll(() => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
    } finally {
      simulator.clearFaults();
    }
    const orders = await ordersOf(username);
    await wholeOrders(page, orders);
    expect(await card.innerText()).toContain('Could not be loaded: the order service had a problem.');
    expect(await card.innerText()).not.toContain('Available from');
    expect(await axeViolations(page)).toEqual([]);
    const before = calls();
    await card.getByRole('button', { name: `Try again: Vehicle, ${order!.reservationId}` }).click();
    // Read again, its call now answered: not reached yet, as the order's stage says; one more call for the part.
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 30_000 }).toBe('absent');
    expect(await card.innerText()).toContain('Available from the “In production” stage.');
    expect(await card.getByRole('button').count()).toBe(0);
    expect(calls()).toBe(before + 1);
    return orders;
  }

  it.each(DEMO_USERNAMES)(
    '%s at 1280 and 390 px: everything the query answers is shown, a card per stage-gated part, each part not reached saying from which stage',
    async (username) => {
      const { page, problems } = await open(1280);
      const orders = username === FAILING.username ? await signInWithFailedPart(page) : await signIn(page, username);
      expect(orders.map(({ reservationId }) => reservationId)).toEqual(
        demoOrders(simulator, username).map(({ reservationId }) => reservationId),
      );
      // The API lists every stage-bound field of the stage table, each as the stage table says.
      for (const order of orders)
        expect(order.availability).toEqual(
          Object.entries(AVAILABLE_FROM).map(([field, from]) => ({
            part: field.toUpperCase(),
            from,
            available: canHaveValue(order.status, from),
          })),
        );
      // The page laid out again at a phone's width: the layout follows the width alone (media queries), not the load.
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const order of orders) await expectOrder(page, order);
        if (orders.length === 0) expect(await page.locator('main').innerText()).toContain('No orders yet.');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
      }
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it('signs in with the keyboard alone, its focus visible', async () => {
    const { page, problems } = await open(390);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('demo');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await wholeOrders(page, await ordersOf(READY));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign out');
    expect(problems).toEqual([]);
    await page.close();
  });
});
