import { prefixKey } from '../src/sockets/admission';

/** The network a per-prefix cap counts under (issue 37 point 3): IPv4 /24, IPv6 /48. */
describe('prefixKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.0/24'],
    ['203.0.113.250', '203.0.113.0/24'],
    // IPv4-mapped IPv6 (a dual-stack listener's view of an IPv4 client) is the IPv4 network.
    ['::ffff:203.0.113.7', '203.0.113.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1::/48'],
    ['2001:db8:1:ffff::1', '2001:db8:1::/48'],
    ['2001:DB8:0001::9', '2001:db8:1::/48'],
    ['fe80::1%eth0', 'fe80:0:0::/48'],
    // Not an address (no peer, an IPv4 shorthand): counted as it is.
    ['unknown', 'unknown'],
    ['127.1', '127.1'],
  ])('counts %s under %s', (address, key) => {
    expect(prefixKey(address)).toBe(key);
  });

  it('puts two /64s of one /48 together and two /48s apart', () => {
    expect(prefixKey('2001:db8:1:1::1')).toBe(prefixKey('2001:db8:1:2::1'));
    expect(prefixKey('2001:db8:1::1')).not.toBe(prefixKey('2001:db8:2::1'));
  });
});
