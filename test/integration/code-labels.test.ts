// The vehicle's codes with their words: every code the simulator serves labelled from the
// labels it ships (what `npm start` uses), a code the operator's file does not have as
// itself (label null, the code unchanged), and the file read and checked at start.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { SIMULATOR_CODE_LABELS } from '../../src/server/config/labels.js';
import { DEMO_USERNAMES } from '../helpers/demo.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const QUERY = /* GraphQL */ `
  {
    me {
      orders {
        product {
          model
          modelLabel
          trim
          trimLabel
        }
        configuration {
          exterior
          exteriorLabel
          interior
          interiorLabel
          wheel
          wheelLabel
          trim
          trimLabel
        }
        vehicle {
          model
          modelLabel
          trim
          trimLabel
          exterior
          exteriorLabel
          interior
          interiorLabel
          wheel
          wheelLabel
        }
      }
    }
  }
`;

const KIND_OF: Record<string, string> = { model: 'model', trim: 'trim', exterior: 'exterior', interior: 'interior', wheel: 'wheel' };

type Part = Record<string, string | null> | null;
type Orders = { product: Part; configuration: Part; vehicle: Part }[];

/** Each code the answer holds, as [kind, code, label]. */
const codes = (orders: Orders) =>
  orders.flatMap((order) =>
    [order.product, order.configuration, order.vehicle].flatMap((part) =>
      part
        ? Object.keys(KIND_OF)
            .filter((field) => field in part && part[field] !== null)
            .map((field) => [field, part[field], part[`${field}Label`]])
        : [],
    ),
  );

const labelsFile = (content: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'code-labels-')), 'labels.json');
  writeFileSync(path, content);
  return path;
};

async function allOrders(harness: Harness): Promise<Orders> {
  const orders: Orders = [];
  for (const username of DEMO_USERNAMES) {
    const { data, errors } = await harness.client(await harness.login(username)).rawRequest<{ me: { orders: Orders } }>(QUERY);
    expect(errors ?? []).toEqual([]);
    orders.push(...data.me.orders);
  }
  return orders;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("the vehicle's codes with their labels", () => {
  it("every code the simulator serves is labelled from the simulator's own file, beside the code", async () => {
    const shipped = JSON.parse((await import('node:fs')).readFileSync(SIMULATOR_CODE_LABELS, 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    harness = await startHarness();
    const found = codes(await allOrders(harness));
    // Model, trim, exterior, interior and wheel all there, each seen at least once.
    expect(new Set(found.map(([field]) => field))).toEqual(new Set(Object.keys(KIND_OF)));
    for (const [field, code, label] of found) expect([field, code, label]).toEqual([field, code, shipped[KIND_OF[field!]!]![code!]]);
    expect(found.every(([, , label]) => typeof label === 'string' && label.length > 0)).toBe(true);
  });

  it("a code the operator's file has no label for is itself: its label null, the code as the upstream sent it", async () => {
    const { codeLabels } = loadConfig({ CODE_LABELS_FILE: labelsFile(JSON.stringify({ exterior: { BSB: 'Deep Blue' } })) });
    harness = await startHarness({ gateway: { codeLabels } });
    const found = codes(await allOrders(harness));
    expect(found.filter(([, , label]) => label !== null)).toEqual(found.filter(([field, code]) => field === 'exterior' && code === 'BSB'));
    expect(found.filter(([field, code]) => field === 'exterior' && code === 'BSB').length).toBeGreaterThan(0);
    for (const [field, code, label] of found) expect(label).toBe(field === 'exterior' && code === 'BSB' ? 'Deep Blue' : null);
  });
});

describe('CODE_LABELS_FILE, read and checked at start', () => {
  const problem = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('a file that does not fit stops the start with what is wrong, naming the setting and the file', () => {
    const cases: [string, string][] = [
      ['{ "exterior": ', 'is not JSON'],
      ['["BSB"]', 'is not a JSON object of model, trim, exterior, interior, wheel'],
      ['{ "paint": { "BSB": "Blue" } }', 'has "paint", not one of model, trim, exterior, interior, wheel'],
      ['{ "exterior": ["BSB"] }', '"exterior" is not an object from code to label'],
      ['{ "exterior": { "BSB": 7 } }', '"exterior.BSB" is not a text of 1 to 200 characters'],
      ['{ "exterior": { "BSB": "" } }', '"exterior.BSB" is not a text of 1 to 200 characters'],
      [JSON.stringify({ wheel: { F3B: 'x'.repeat(201) } }), '"wheel.F3B" is not a text of 1 to 200 characters'],
      [JSON.stringify({ trim: { ['C'.repeat(65)]: 'Long' } }), '"trim" has a code empty or longer than 64 characters'],
      [JSON.stringify({ model: Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`M${i}`, 'M'])) }), 'has more than 5000 labels'],
      [JSON.stringify({ model: { A: 'x'.repeat(200) } }).padEnd(256 * 1024 + 1, ' '), 'is larger than 262144 bytes'],
    ];
    for (const [content, what] of cases) {
      const path = labelsFile(content);
      expect(problem({ CODE_LABELS_FILE: path })).toEqual([`CODE_LABELS_FILE ${path} ${what}`]);
    }
    expect(problem({ CODE_LABELS_FILE: '/nonexistent/labels.json' })).toEqual([
      'CODE_LABELS_FILE /nonexistent/labels.json cannot be read (ENOENT)',
    ]);
  });

  it("unset: the embedded simulator's labels when it serves the upstream, none in front of a real upstream", () => {
    expect(loadConfig({}).codeLabels.exterior.get('BSB')).toBe('Big Sur Blue');
    const urls = {
      AUTH_URL: 'http://a',
      APPOINTMENT_URL: 'http://a',
      ORDER_URL: 'http://a',
      PRICE_CALCULATOR_URL: 'http://a',
      TRADE_IN_URL: 'http://a',
    };
    expect(loadConfig(urls).codeLabels.exterior.size).toBe(0);
    const path = labelsFile('{ "wheel": { "F3B": " 22-inch Black " } }');
    expect([...loadConfig({ ...urls, CODE_LABELS_FILE: path }).codeLabels.wheel]).toEqual([['F3B', '22-inch Black']]);
  });
});
