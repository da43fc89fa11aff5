// GraphiQL as a new user meets it, in Debian's Chromium: open the page, sign in, run. Every
// click and keystroke the test makes counts as an action.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offeredDemoLogins, startSimulator, type Simulator } from '../../src/simulator/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from '../helpers/chromium.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { startGateway } from '../helpers/harness.js';

const SCREENSHOTS = new URL('../../test-results/', import.meta.url);

let simulator: Simulator;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let browser: Browser;

beforeAll(async () => {
  if (!haveBrowser) return;
  simulator = await startSimulator();
  gateway = await startGateway({
    upstreamUrls: simulator.urls,
    demoLogins: offeredDemoLogins(simulator.customers),
    live: { pollIntervalMs: 300 },
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await simulator?.close();
});

/** The page with a count of what the user did on it, and what its Content Security Policy refused. */
async function open(): Promise<{
  page: Page;
  actions: string[];
  offline: string[];
  refused: string[];
  act<T>(what: string, action: () => Promise<T>): Promise<T>;
}> {
  const actions: string[] = [];
  const act = async <T>(what: string, action: () => Promise<T>) => {
    actions.push(what);
    return action();
  };
  // Tall enough for the editor to render the whole result, not only its first screen.
  const page = await browser.newPage({ viewport: { width: 1400, height: 9000 } });
  const offline: string[] = [];
  const refused: string[] = [];
  // Whatever the page's policy refuses (a script, a style, a worker, a connection) Chromium reports on the console.
  page.on('console', (message) => {
    if (/Content Security Policy/.test(message.text())) refused.push(message.text().slice(0, 300));
  });
  page.on('request', (request) => {
    // Everything must come from the gateway itself (blob: and data: are the page's own workers).
    if (!/^(http:\/\/127\.0\.0\.1:|blob:|data:)/.test(request.url())) offline.push(request.url());
  });
  await act('open the page', () => page.goto(gateway.endpoint, { waitUntil: 'load', timeout: 60_000 }));
  await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
  return { page, actions, offline, refused, act };
}

const responseText = async (page: Page) => (await page.locator('.graphiql-response').innerText()).replace(/\s+/g, '');
const selectedTab = (page: Page) => page.locator('.graphiql-tab[aria-selected="true"]').innerText();

/** Switches tabs with a click, as a person does, and waits until the editor shows its document. */
async function tab(page: Page, name: string, operation: string) {
  await page.locator(`button[title="${name}"]`).click();
  await expect.poll(() => selectedTab(page)).toBe(name);
  await expect
    .poll(async () => (await page.locator('.graphiql-query-editor').innerText()).replace(/\s+/g, ' '))
    .toContain(`${operation} ${name}`);
}

/**
 * Runs the selected tab until its answer holds `expected`. GraphiQL takes the operation name
 * from the editor after a debounce: right after a tab switch on a loaded machine, a run can
 * still name the previous tab's operation ("Cannot infer operation"); a person presses run
 * again, and so does this (used only after a tab switch, never in the counted path).
 */
async function runUntil(page: Page, expected: string) {
  const pattern = new RegExp(`${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|Cannotinferoperation`);
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => responseText(page), { timeout: 20_000 }).toMatch(pattern);
    if ((await responseText(page)).includes(expected)) return;
    await page.waitForTimeout(200);
  }
  throw new Error(`GraphiQL never ran the selected tab: ${await responseText(page)}`);
}

/** A phone as Chromium emulates one: its viewport meta is honoured, as on the device. */
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/** The sign-in bar's visible parts, each with its box in CSS pixels, and the page's widths. */
async function signInLayout(page: Page) {
  const parts = page.locator('#order-graph-bar').locator('h1, label, select, input, button, .status');
  const boxes = [];
  for (const part of await parts.all()) {
    const box = await part.boundingBox();
    if (box)
      boxes.push({
        part: await part.evaluate((element) => element.tagName.toLowerCase() + (element.className ? `.${element.className}` : '')),
        ...box,
      });
  }
  // The page's own script context has the DOM; this file is compiled without its types.
  const [viewportWidth, scrollWidth] = await page.evaluate<[number, number]>('[innerWidth, document.documentElement.scrollWidth]');
  return { boxes, viewportWidth, scrollWidth };
}

/** The layout fits its width: nothing scrolls sideways and every part of the bar lies within it. */
function expectFits(layout: Awaited<ReturnType<typeof signInLayout>>, width: number) {
  expect(layout.viewportWidth).toBe(width);
  expect(layout.scrollWidth).toBeLessThanOrEqual(width);
  for (const box of layout.boxes) {
    expect({ part: box.part, left: box.x >= 0, right: box.x + box.width <= width }).toEqual({ part: box.part, left: true, right: true });
  }
}

/** axe-core's serious and critical findings in the sign-in bar's own markup. */
async function barViolations(page: Page) {
  // Run through the DevTools protocol, so the page's CSP (its own inline scripts only) stays as it is.
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate<{ id: string; impact: string | null; nodes: { target: unknown }[] }[]>(
    "axe.run('#order-graph-bar', { resultTypes: ['violations'] }).then((r) => r.violations.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.map(({ target }) => ({ target })) })))",
  );
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Picks a demo customer by username in the bar's picker, as a person chooses the option. */
async function pickDemo(page: Page, username: string) {
  const labels = await page.locator('#order-graph-sign-in select option').allInnerTexts();
  const index = labels.findIndex((label) => label.startsWith(`${username} — `));
  expect(index).toBeGreaterThan(0);
  await page.locator('#order-graph-sign-in select').selectOption({ index });
}

describe.skipIf(!haveBrowser)(`GraphiQL in Chromium (${CHROMIUM})`, () => {
  it('three actions from opening the page to the whole order: open, Sign in, run; the token stays in the page’s memory; the deferred query and the live updates run from their tabs', async () => {
    const { page, actions, offline, refused, act } = await open();
    expect(await selectedTab(page)).toBe('WholeOrder');
    // The demo customer with every part of an order is offered first.
    expect(await page.locator('#order-graph-sign-in select').inputValue()).toBe('0');
    expect(await page.locator('#order-graph-sign-in select option').first().innerText()).toContain('ready@demo.test');

    await act('press Sign in', () => page.getByRole('button', { name: 'Sign in' }).click());
    await expect.poll(() => page.getByRole('status').innerText()).toMatch(/^Signed in as ready@demo\.test \(until .*\): run a tab\.$/);
    await act('press run', () => page.locator('.graphiql-execute-button').click());

    const vin = simulator.data.vehicleDetails.find((v) => v.reservationId === 'OC-ACBDE')!.vin;
    await expect.poll(() => responseText(page), { timeout: 20_000 }).toContain(`"vin":"${vin}"`);
    expect(await responseText(page)).not.toContain('"errors"');
    expect(actions).toEqual(['open the page', 'press Sign in', 'press run']);
    console.info(`GraphiQL: ${actions.length} actions from opening the page to the whole order (${actions.join(', ')})`);

    // Kept in memory only: nothing of it in the page's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.screenshot({ path: new URL('graphiql-whole-order.png', SCREENSHOTS).pathname });
    await page.setViewportSize({ width: 1400, height: 9000 });

    // The same page, signed in: the deferred query and the live updates from their tabs.
    await tab(page, 'WholeOrderDeferred', 'query');
    await runUntil(page, `"vin":"${vin}"`);

    await tab(page, 'OrderUpdates', 'subscription');
    await runUntil(page, '"changes":[]');
    const order = simulator.data.orders.find((o) => o.reservationId === 'OC-ACBDE')!;
    const was = order.status;
    order.status = 'DELIVERED';
    try {
      await expect.poll(() => responseText(page), { timeout: 10_000 }).toContain(`{"field":"status","from":"${was}","to":"DELIVERED"}`);
    } finally {
      order.status = was;
    }
    expect(offline).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('in front of a real upstream (no demo customers), on a phone: typed credentials in fields that fit; a wrong password says why and signs nothing in', async () => {
    const real = await startGateway({ upstreamUrls: simulator.urls });
    try {
      const context = await browser.newContext(PHONE);
      const page = await context.newPage();
      await page.goto(real.endpoint, { waitUntil: 'load', timeout: 60_000 });
      await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
      expect(await page.locator('#order-graph-sign-in select').count()).toBe(0);
      // The username and password fields fit beside each other or below.
      const layout = await signInLayout(page);
      expectFits(layout, PHONE.viewport!.width);
      expect(layout.boxes.map(({ part }) => part)).toEqual(['h1', 'input', 'input', 'button', 'span.status']);
      expect(await barViolations(page)).toEqual([]);

      const { password } = demoCustomer(simulator, 'two-orders@demo.test');
      await page.getByPlaceholder('Username').fill('two-orders@demo.test');
      await page.getByPlaceholder('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('status').innerText()).toMatch(/^Sign-in refused: /);
      expect(await page.getByRole('button', { name: 'Sign out' }).isHidden()).toBe(true);

      await page.getByPlaceholder('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('status').innerText()).toMatch(/^Signed in as two-orders@demo\.test/);
      // The password field is emptied once it has served.
      await page.getByRole('button', { name: 'Sign out' }).click();
      expect(await page.getByPlaceholder('Password').inputValue()).toBe('');
      expect(await page.getByRole('status').innerText()).toBe('Signed out: the token is forgotten.');
      await context.close();
    } finally {
      await real.close();
    }
  });
});

/**
 * What axe-core still finds in GraphiQL's own markup, each left with its reason; everything the
 * project adds (the bar, the landmarks, the heading, the layout) is checked without exception.
 */
const GRAPHIQL_OWN_FINDINGS = [
  {
    rule: 'nested-interactive',
    within: '.graphiql-tabs',
    reason: "GraphiQL's tab is an li with role tab around two buttons (select, close): its markup, not the page's",
  },
  {
    rule: 'color-contrast',
    within: '.graphiql-dialog .graphiql-warning-text',
    reason: "the warning in GraphiQL's settings dialog, in GraphiQL's own colours",
  },
];

/** axe-core's findings on the whole page, of every impact, less GraphiQL's own listed above. */
async function pageFindings(page: Page) {
  await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate<{ id: string; nodes: { target: string[]; inOwn: boolean[] }[] }[]>(
    `axe.run(document, { resultTypes: ['violations'], elementRef: true }).then((r) => r.violations.map(({ id, nodes }) => ({ id, nodes: nodes.map(({ target, element }) => ({ target, inOwn: ${JSON.stringify(GRAPHIQL_OWN_FINDINGS)}.map(({ rule, within }) => rule === id && !!element?.closest(within)) })) })))`,
  );
  const excused = new Set<string>();
  const left = violations.flatMap(({ id, nodes }) =>
    nodes.flatMap(({ target, inOwn }) => {
      inOwn.forEach((own, i) => own && excused.add(GRAPHIQL_OWN_FINDINGS[i]!.rule));
      return inOwn.some(Boolean) ? [] : [`${id}: ${target.join(' ')}`];
    }),
  );
  return { left, excused: [...excused] };
}

/** Every control the page shows (drawn, not hidden) that lies outside the window, with its box. */
async function controlsOutOfView(page: Page) {
  return page.evaluate<
    string[]
  >(`[...document.querySelectorAll('button, a[href], input, select, textarea, [role="tab"], [tabindex]:not([tabindex="-1"])')]
    .filter((element) => {
      const box = element.getBoundingClientRect();
      const drawn = box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';
      return drawn && (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth);
    })
    .map((element) => (element.getAttribute('aria-label') || element.getAttribute('title') || element.textContent.trim() || element.tagName) + ' at ' + [...Object.values(element.getBoundingClientRect().toJSON())].map(Math.round).join(','))`);
}

describe.skipIf(!haveBrowser)('GraphiQL on a phone (390×844) and at desktop width (1280×800)', () => {
  it.each([
    { size: 'desktop', options: DESKTOP },
    { size: 'phone', options: PHONE },
  ])(
    '$size: the document is the window and every control in view, the sign-in bar fits, a wheel scrolls nothing, a tab takes one press, a picked demo customer signs in and a query runs; axe-core finds nothing of the page’s',
    async ({ size, options }) => {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      await page.goto(gateway.endpoint, { waitUntil: 'load', timeout: 60_000 });
      await page.waitForSelector('.graphiql-container .graphiql-tab', { timeout: 30_000 });
      const { width, height } = options.viewport!;
      const extent = () =>
        page.evaluate<{ width: number; height: number; scrollY: number }>(
          '({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight, scrollY })',
        );
      const inWindow = async () => {
        expect(await extent()).toEqual({ width, height, scrollY: 0 });
        expect(await controlsOutOfView(page)).toEqual([]);
      };
      await inWindow();

      // The sign-in bar fits its width.
      const before = await signInLayout(page);
      expectFits(before, width);
      expect(before.boxes.map(({ part }) => part)).toEqual(['h1', 'label', 'select', 'button', 'span.status']);
      const box = (part: string) => before.boxes.find((candidate) => candidate.part === part)!;
      if (size === 'desktop') {
        // One line, as the bar always was at this width: every part overlaps every other vertically.
        expect(Math.max(...before.boxes.map(({ y }) => y))).toBeLessThan(Math.min(...before.boxes.map(({ y, height }) => y + height)));
      } else {
        // The picker has a line of its own, wide enough to read the customer in it.
        expect(box('select').width).toBeGreaterThan(width / 2);
        expect(box('button').y).toBeGreaterThan(box('select').y + box('select').height - 1);
      }
      expect(await barViolations(page)).toEqual([]);
      console.info(
        `GraphiQL at ${width} px: the page is ${before.scrollWidth} px wide, the bar ${before.boxes.map(({ part, x, width: w }) => `${part} ${Math.round(x)}..${Math.round(x + w)}`).join(', ')}`,
      );
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: new URL(`graphiql-${width}-sign-in.png`, SCREENSHOTS).pathname });

      // A wheel over the bar: the page has nowhere to go.
      const bar = (await page.locator('#order-graph-bar').boundingBox())!;
      await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
      await page.mouse.wheel(0, 1_000);
      await page.waitForTimeout(300);
      expect((await extent()).scrollY).toBe(0);

      // Each tab selected by one press, as a person's click (or tap) makes it.
      const missed: string[] = [];
      for (const name of ['WholeOrderDeferred', 'OrderUpdates', 'Login', 'OrderUpdates', 'WholeOrder']) {
        const button = page.locator(`button[title="${name}"]`);
        await (size === 'phone' ? button.tap() : button.click());
        const selected = await expect
          .poll(() => selectedTab(page), { timeout: 3_000 })
          .toBe(name)
          .then(
            () => true,
            () => false,
          );
        if (!selected) missed.push(name);
      }
      expect(missed).toEqual([]);
      await inWindow();

      // The bar is the page's banner with its heading; GraphiQL is its main content.
      expect(await page.getByRole('banner').getByRole('heading', { level: 1 }).innerText()).toBe('Order Graph');
      expect(await page.getByRole('main').locator('#graphiql-session').count()).toBe(1);
      const findings = [await pageFindings(page)];

      await pickDemo(page, 'two-orders@demo.test');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('status').innerText()).toMatch(/^Signed in as two-orders@demo\.test /);
      const after = await signInLayout(page);
      expectFits(after, width);
      expect(after.boxes.map(({ part }) => part)).toEqual(['h1', 'button', 'span.status']);

      // The editor draws only the lines and columns in sight (few of them on a phone): the whole
      // answer is read from the wire, and the pane shows its beginning.
      const answer = page.waitForResponse(
        (response) => response.request().method() === 'POST' && /\bquery WholeOrder\b/.test(response.request().postData() ?? ''),
      );
      await runUntil(page, '{"data":{"me":{"id":');
      const body = await (await answer).text();
      expect(JSON.parse(body)).toMatchObject({ data: { me: { email: 'two-orders@demo.test' } } });
      expect(body).not.toContain('"errors"');
      for (const { reservationId } of demoOrders(simulator, 'two-orders@demo.test'))
        expect(body).toContain(`"reservationId":"${reservationId}"`);
      expectFits(await signInLayout(page), width);
      const editors = (await page.locator('.graphiql-editors').boundingBox())!;
      const response = (await page.locator('.graphiql-response').boundingBox())!;
      if (size === 'desktop') {
        expect(response.x).toBeGreaterThanOrEqual(editors.x + editors.width); // beside the editors, as GraphiQL sets it
      } else {
        // Below the editors, across the width GraphiQL leaves them (it sets the answer beside them, some 50 px wide).
        expect(response.y).toBeGreaterThanOrEqual(editors.y + editors.height);
        expect(response.width).toBeGreaterThanOrEqual(editors.width);
      }
      await page.screenshot({ path: new URL(`graphiql-${width}.png`, SCREENSHOTS).pathname });
      // Signed in, with an answer in its pane: still the window, still nothing of the page's.
      await inWindow();
      findings.push(await pageFindings(page));

      // The settings, from the button at the foot of GraphiQL's sidebar, open in view.
      await page.getByRole('button', { name: 'Open settings dialog' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const shown = (await dialog.boundingBox())!;
      expect([shown.x >= 0, shown.y >= 0, shown.x + shown.width <= width, shown.y + shown.height <= height]).toEqual([
        true,
        true,
        true,
        true,
      ]);
      expect(await extent()).toEqual({ width, height, scrollY: 0 });
      findings.push(await pageFindings(page));

      expect(findings.flatMap(({ left }) => left)).toEqual([]);
      const excused = [...new Set(findings.flatMap((found) => found.excused))];
      console.info(`GraphiQL at ${width}×${height}: axe-core finds nothing of the page's; GraphiQL's own: ${excused.join(', ') || 'none'}`);
      await context.close();
    },
  );
});
