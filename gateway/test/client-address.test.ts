import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import fc from 'fast-check';
import { addressKey, clientAddressOf } from '../src/client-address';

describe('the client address of an upgrade', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Express's own answer (what the rate limits count by) beside ours, for the same request.
    const app = express();
    app.get('/:trust', (req, res) => {
      const trust = Number(req.params.trust);
      app.set('trust proxy', trust);
      res.json({ express: req.ip, ours: clientAddressOf(req, trust) });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("is the address express's req.ip gives for the same trusted hops and X-Forwarded-For", async () => {
    const entry = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('unknown', '[', 'a b', ''));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4 }),
        fc.option(fc.array(entry, { maxLength: 5 }), { nil: undefined }),
        async (trust, forwarded) => {
          const headers: Record<string, string> =
            forwarded === undefined ? {} : { 'x-forwarded-for': forwarded.join(', ') };
          const answer = (await (await fetch(`${url}/${trust}`, { headers })).json()) as {
            express: string;
            ours: string;
          };
          expect(answer.ours).toBe(answer.express);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the key a per-address limit counts under', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('counts %s as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
