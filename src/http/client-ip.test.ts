import { describe, expect, it } from 'vitest';
import { rateLimitIp } from './client-ip.js';

describe('contract 8: IPv6 clients count per /64', () => {
  it('keeps IPv4 addresses as they are, IPv4-mapped ones as their IPv4', () => {
    expect(rateLimitIp('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitIp('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('groups every address of one /64, however it is written', () => {
    const key = rateLimitIp('2001:db8:aa:bb::1');
    for (const ip of ['2001:db8:aa:bb:ffff:ffff:ffff:ffff', '2001:0db8:00aa:00bb:0:0:0:2', '2001:DB8:AA:BB:1:2:3:4', '2001:db8:aa:bb::1.2.3.4']) {
      expect(rateLimitIp(ip)).toBe(key);
    }
    expect(key).toBe('2001:db8:aa:bb::/64');
  });

  it('tells neighbouring /64s apart', () => {
    expect(rateLimitIp('2001:db8:aa:bc::1')).not.toBe(rateLimitIp('2001:db8:aa:bb::1'));
    expect(rateLimitIp('::1')).toBe('0:0:0:0::/64');
  });
});
