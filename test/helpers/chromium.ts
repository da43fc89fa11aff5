// Debian's Chromium for the browser tests and scripts: where it is, whether to run, and how it starts.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** On a developer machine without it the browser tests are skipped; in CI (CI=true) a missing browser is a failure. */
export const haveBrowser = existsSync(CHROMIUM) || !!process.env.CI;

/** Headless, offline: no sandbox (containers), no GPU, nothing fetched in the background. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
