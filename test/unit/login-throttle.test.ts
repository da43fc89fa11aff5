// The login throttle's pure parts: the key a username is counted under, and the delays.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.js';
import { delayAfter, normalizeUsername, usernameKey } from '../../src/server/login-throttle.js';

describe('normalizeUsername', () => {
  it('variants of one username share a key: case, fullwidth, zero-width and format characters, whitespace, trailing dots', () => {
    const variants = [
      'victim@example.test',
      'Victim@Example.TEST',
      '  victim@example.test\t',
      'victim@example.test.',
      'victim@example.test..',
      'vic\u200btim@example.test', // zero-width space
      'vic\u200ctim\u200d@example.test', // ZWNJ, ZWJ
      '\ufeffvictim@example.test', // BOM
      'vic\u00adtim@example.test', // soft hyphen
      'vic\u2060tim@example.test', // word joiner
      'vic\u034ftim@example.test', // combining grapheme joiner (default-ignorable, not a format character)
      'ｖｉｃｔｉｍ＠ｅｘａｍｐｌｅ．ｔｅｓｔ', // fullwidth
      'victim@example.test\u3000', // ideographic space
      'vic tim@example.test',
      'victim@exam\u0000ple.test',
    ];
    for (const variant of variants) expect(normalizeUsername(variant), JSON.stringify(variant)).toBe('victim@example.test');
    expect(new Set(variants.map(usernameKey)).size).toBe(1);
  });

  it('folds case beyond ASCII, and keeps different names apart', () => {
    expect(normalizeUsername('STRASSE@x.test')).toBe(normalizeUsername('straße@x.test'));
    expect(normalizeUsername('ΟΔΟΣ@x.test')).toBe(normalizeUsername('οδος@x.test'));
    expect(normalizeUsername('ﬁ@x.test')).toBe('fi@x.test');
    expect(usernameKey('victim@example.test')).not.toBe(usernameKey('victim2@example.test'));
    expect(usernameKey('a.b@x.test')).not.toBe(usernameKey('ab@x.test'));
  });
});

describe('delayAfter', () => {
  const limits = loadConfig({}).loginThrottle;
  it('none for the free failures, then 30 s doubling, never more than the window', () => {
    expect([1, 2, 3, 4].map((n) => delayAfter(n, limits))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 1000].map((n) => delayAfter(n, limits))).toEqual([30, 60, 120, 240, 480, 900, 900, 900]);
  });
});
