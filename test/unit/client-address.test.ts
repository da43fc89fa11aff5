// Whose address a request comes from: the socket's, or behind a trusted proxy (by address,
// never by hop count) the entry that proxy added. Spoofed and malformed entries never win.
import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from '../../src/server/request-scope.js';
import { addressKey } from '../../src/upstream/scope.js';

const none = trustedProxies([]);
const loopback = trustedProxies(['loopback']);
const ingress = trustedProxies(['10.0.0.0/8']);

describe('clientAddress', () => {
  it('is the socket’s when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('198.51.100.7', '203.0.113.5', none)).toBe('203.0.113.5');
    expect(clientAddress(null, '::1', none)).toBe('::1');
  });

  it('believes X-Forwarded-For only from a trusted proxy’s connection: a client reaching the gateway directly cannot spoof it', () => {
    // The ingress at 10.1.2.3 added the client's address: believed.
    expect(clientAddress('198.51.100.7', '10.1.2.3', ingress)).toBe('198.51.100.7');
    // A client that reached the pod directly (not from the ingress range) sends its own header: ignored.
    expect(clientAddress('198.51.100.7', '203.0.113.5', ingress)).toBe('203.0.113.5');
  });

  it('takes the entry the nearest trusted hop added; entries a client sent before it are ignored', () => {
    expect(clientAddress('1.1.1.1, 198.51.100.7', '127.0.0.1', loopback)).toBe('198.51.100.7');
    expect(clientAddress('198.51.100.7, 10.2.0.1', '10.1.2.3', ingress)).toBe('198.51.100.7');
  });

  it('a forwarded entry that is not an IP is ignored: the proxy that passed it stands for the client', () => {
    for (const garbage of ['nope', '', ' , ', 'unknown', '1.2.3', '999.1.1.1']) {
      expect(clientAddress(garbage, '127.0.0.1', loopback), garbage).toBe('127.0.0.1');
    }
    expect(clientAddress('198.51.100.7, nope', '127.0.0.1', loopback)).toBe('127.0.0.1');
  });
});

describe('addressKey: a client address as the per-address limits count it', () => {
  it('an IPv6 address by its /64, however it is written; IPv4, mapped into IPv6 or not, as itself', () => {
    expect(addressKey('2001:db8:1:2::a')).toBe(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::a')).not.toBe(addressKey('2001:db8:1:3::a'));
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('198.51.100.7')).not.toBe(addressKey('198.51.100.8'));
    expect(addressKey(null)).toBeNull();
  });
});
