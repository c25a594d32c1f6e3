import { describe, expect, it } from 'vitest';
import { hostName, isLoopbackName } from './host-guard';
import { isCrossOrigin } from './origin-guard';

describe('isLoopbackName', () => {
  it('accepts localhost, *.localhost, 127.0.0.0/8 and ::1', () => {
    for (const name of [
      'localhost',
      'LocalHost',
      'localhost.',
      'app.localhost',
      '127.0.0.1',
      '127.255.0.9',
      '[::1]',
      '::1',
      '[::ffff:127.0.0.1]',
    ]) {
      expect(isLoopbackName(name), name).toBe(true);
    }
  });

  it('refuses every name a DNS server could answer for, and other addresses', () => {
    for (const name of [
      'attacker.test',
      'localhost.attacker.test',
      '127.0.0.1.attacker.test',
      'notlocalhost',
      '127.0.0.256',
      '128.0.0.1',
      '0.0.0.0',
      '10.0.0.1',
      '[::2]',
      '',
    ]) {
      expect(isLoopbackName(name), name).toBe(false);
    }
  });
});

describe('hostName', () => {
  it('drops the port of a Host header', () => {
    expect(hostName('localhost:7420')).toBe('localhost');
    expect(hostName('[::1]:7420')).toBe('[::1]');
    expect(hostName('[::1]')).toBe('[::1]');
    expect(hostName('attacker.test')).toBe('attacker.test');
  });
});

describe('isCrossOrigin', () => {
  const request = (headers: Record<string, string>) => ({ headers });
  it('non-browser clients (no Origin, no Sec-Fetch-Site) and same-origin pages are not', () => {
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420' }))).toBe(false);
    expect(
      isCrossOrigin(request({ host: '127.0.0.1:7420', origin: 'http://127.0.0.1:7420' })),
    ).toBe(false);
    expect(isCrossOrigin(request({ host: 'localhost', origin: 'http://localhost:80' }))).toBe(
      false,
    );
    expect(
      isCrossOrigin(request({ host: '127.0.0.1:7420', 'sec-fetch-site': 'same-origin' })),
    ).toBe(false);
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420', 'sec-fetch-site': 'none' }))).toBe(
      false,
    );
  });

  it('another origin, another port, an opaque origin or a cross-site fetch are', () => {
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420', origin: 'http://attacker.test' }))).toBe(
      true,
    );
    expect(
      isCrossOrigin(request({ host: '127.0.0.1:7420', origin: 'http://127.0.0.1:3000' })),
    ).toBe(true);
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420', origin: 'null' }))).toBe(true);
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420', 'sec-fetch-site': 'cross-site' }))).toBe(
      true,
    );
    expect(isCrossOrigin(request({ host: '127.0.0.1:7420', 'sec-fetch-site': 'same-site' }))).toBe(
      true,
    );
  });
});
