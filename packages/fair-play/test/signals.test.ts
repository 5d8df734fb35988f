import { addressPrefixHash, deviceIdHash, RingDetector, userAgentHash } from '../src';

const secret = 'server-secret';

describe('deviceIdHash', () => {
  it('gives equal ids one value and keeps neither the id nor a value without the secret', () => {
    const hash = deviceIdHash('device-abc123', secret);
    expect(hash).toMatch(/^dev:[0-9a-f]{64}$/);
    expect(deviceIdHash('  device-abc123 ', secret)).toBe(hash);
    expect(deviceIdHash('device-abc124', secret)).not.toBe(hash);
    expect(deviceIdHash('device-abc123', 'another secret')).not.toBe(hash);
    expect(hash).not.toContain('abc123');
  });

  it('is empty for an absent id, and looks at no more than 200 characters', () => {
    expect(deviceIdHash('', secret)).toBe('');
    expect(deviceIdHash('   ', secret)).toBe('');
    const long = 'd'.repeat(200);
    expect(deviceIdHash(`${long}tail`, secret)).toBe(deviceIdHash(long, secret));
  });
});

describe('addressPrefixHash', () => {
  it('gives one value for every address of one IPv4 /24, another for the next /24', () => {
    const hash = addressPrefixHash('203.0.113.7', secret);
    expect(hash).toMatch(/^v4:[0-9a-f]{64}$/);
    expect(addressPrefixHash('203.0.113.250', secret)).toBe(hash);
    expect(addressPrefixHash('203.0.114.7', secret)).not.toBe(hash);
  });

  it('gives one value for every address of one IPv6 /64, however it is written', () => {
    const hash = addressPrefixHash('2001:db8:1:2::1', secret);
    expect(hash).toMatch(/^v6:[0-9a-f]{64}$/);
    expect(addressPrefixHash('2001:0db8:0001:0002:ffff:ffff:ffff:ffff', secret)).toBe(hash);
    expect(addressPrefixHash('2001:db8:1:3::1', secret)).not.toBe(hash);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(addressPrefixHash('::ffff:203.0.113.9', secret)).toBe(
      addressPrefixHash('203.0.113.1', secret),
    );
  });

  it('keeps no address: the value depends on the secret and does not contain the prefix', () => {
    const hash = addressPrefixHash('203.0.113.7', secret);
    expect(addressPrefixHash('203.0.113.7', 'another secret')).not.toBe(hash);
    expect(hash).not.toContain('cb0071');
  });

  it.each(['', 'not an address', '203.0.113', '0x7f.1', '203.0.113.7/24', '2001:db8::g'])(
    'refuses %j with INVALID_ADDRESS',
    (address) => {
      expect(() => addressPrefixHash(address, secret)).toThrow(
        expect.objectContaining({ code: 'INVALID_ADDRESS' }),
      );
    },
  );

  it('refuses an empty secret', () => {
    expect(() => addressPrefixHash('203.0.113.7', '')).toThrow('non-empty secret');
  });
});

describe('userAgentHash', () => {
  it('hashes the normalised string: case and spacing do not matter, the version does', () => {
    const hash = userAgentHash('Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', secret);
    expect(hash).toMatch(/^ua:[0-9a-f]{64}$/);
    expect(userAgentHash('  mozilla/5.0  (x11; linux x86_64) firefox/133.0 ', secret)).toBe(hash);
    expect(userAgentHash('Mozilla/5.0 (X11; Linux x86_64) Firefox/134.0', secret)).not.toBe(hash);
  });
});

describe('RingDetector', () => {
  it('folds registrations, logins, joins and votes into linked participants', () => {
    const detector = new RingDetector();
    detector.record({
      kind: 'registered',
      userId: 'a',
      at: 1_000,
      deviceId: 'd1',
      addressPrefix: 'v4:x',
    });
    detector.record({ kind: 'loggedIn', userId: 'b', at: 2_000, deviceId: 'd1' });
    detector.record({ kind: 'joined', userId: 'c', at: 3_000, addressPrefix: 'v4:x' });
    detector.roundStarted(1, ['i1', 'i2', 'i3', 'i4']);
    detector.record({ kind: 'voted', userId: 'a', at: 10_000, roundNumber: 1, imageId: 'i1' });
    detector.record({ kind: 'voted', userId: 'a', at: 11_000, roundNumber: 1, imageId: 'i2' });
    const report = detector.report();
    expect(report.clusters.map((cluster) => cluster.members)).toEqual([['a', 'b', 'c']]);
    expect(report.clusters[0]!.evidence.map((item) => item.text)).toEqual([
      '2 accounts share device d1',
      '2 accounts share address prefix x',
    ]);
  });
});
