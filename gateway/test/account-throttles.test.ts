import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
} from './support';

// Issue 24 M1 and L1: the account throttles keep an attacker who knows only the e-mail from
// locking its owner out.

const post = (gateway: TestGateway, path: string, body: unknown, headers = {}) =>
  fetch(gateway.url(path), {
    method: 'POST',
    headers: { ...jsonHeaders, ...headers },
    body: JSON.stringify(body),
  });

/** A login to ann@example.com from a client address (behind one trusted proxy) and device. */
const login = (
  gateway: TestGateway,
  from: { ip: string; device?: string },
  password = validPassword,
) =>
  post(
    gateway,
    '/api/login',
    { email: 'ann@example.com', password },
    { 'x-forwarded-for': from.ip, 'x-device-id': from.device ?? '' },
  );

describe('login throttling by source', () => {
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway({
      env: { TRUST_PROXY: '1', RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '3' },
    });
  });
  afterEach(() => gateway.stop());

  const owner = { ip: '198.51.100.7', device: 'owner-phone' };
  const attacker = { ip: '203.0.113.9', device: 'attacker-1' };

  it("lets the owner in from a device or address that signed in before, while failures from elsewhere lock the account's other sources", async () => {
    expect((await login(gateway, owner)).status).toBe(200);

    for (let guess = 0; guess < 3; guess += 1) {
      expect((await login(gateway, attacker, 'wrong-guess1')).status).toBe(401);
    }
    expect((await login(gateway, attacker, 'wrong-guess1')).status).toBe(429);
    // Rotating the device id or the address does not buy the attacker new tries.
    expect((await login(gateway, { ip: '203.0.113.10', device: 'attacker-2' })).status).toBe(429);

    // The known device from a new address, and the known address with a new device id.
    expect((await login(gateway, { ip: '192.0.2.44', device: owner.device })).status).toBe(200);
    expect((await login(gateway, { ip: owner.ip, device: 'owner-new-browser' })).status).toBe(200);
  });

  it("lets the owner in from a new device on a new network while one network's guesses lock only that network", async () => {
    expect((await login(gateway, owner)).status).toBe(200);
    for (let guess = 0; guess < 3; guess += 1) {
      expect((await login(gateway, attacker, 'wrong-guess1')).status).toBe(401);
    }
    // Another address and device on the attacker's /24: the same network, no new tries.
    expect((await login(gateway, { ip: '203.0.113.200', device: 'attacker-3' })).status).toBe(429);
    // The owner's new phone, on a network the account has never signed in from.
    expect((await login(gateway, { ip: '192.0.2.44', device: 'owner-new-phone' })).status).toBe(
      200,
    );
  });

  it('stops the guesses of every new network together at three budgets: then a new device waits', async () => {
    expect((await login(gateway, owner)).status).toBe(200);
    for (const network of ['203.0.113', '203.0.114', '203.0.115']) {
      for (let guess = 0; guess < 3; guess += 1) {
        const from = { ip: `${network}.9`, device: `attacker-${network}` };
        expect((await login(gateway, from, 'wrong-guess1')).status).toBe(401);
      }
    }
    // A fourth network, and the owner's new device on a fifth: the ceiling is reached.
    const fourth = { ip: '203.0.116.9', device: 'attacker-4' };
    expect((await login(gateway, fourth, 'wrong-guess1')).status).toBe(429);
    expect((await login(gateway, { ip: '192.0.2.44', device: 'owner-new-phone' })).status).toBe(
      429,
    );
    // The owner's known device is not held back by any of it.
    expect((await login(gateway, { ip: '192.0.2.44', device: owner.device })).status).toBe(200);
  });

  it('gives a known source its own budget, still limited', async () => {
    expect((await login(gateway, owner)).status).toBe(200);
    for (let guess = 0; guess < 3; guess += 1) {
      expect((await login(gateway, owner, 'wrong-guess1')).status).toBe(401);
    }
    expect((await login(gateway, owner)).status).toBe(429);
    // Its failures are its own: a source the account has not used is not blocked by them.
    expect((await login(gateway, { ip: '192.0.2.1', device: 'new-laptop' })).status).toBe(200);
  });
});

describe('per-address limits', () => {
  it('count an IPv6 client by its /64: rotating its own addresses buys no tries', async () => {
    const gateway = await startTestGateway({
      env: { TRUST_PROXY: '1', RATE_LIMIT_LOGIN_FAILURES_PER_IP: '2' },
    });
    try {
      const guess = (ip: string) => login(gateway, { ip, device: 'd' }, 'wrong-guess1');
      expect((await guess('2001:db8:1:2::1')).status).toBe(401);
      expect((await guess('2001:db8:1:2::2')).status).toBe(401);
      expect((await guess('2001:db8:1:2:ffff::3')).status).toBe(429);
      // Another network (another /64) has its own budget.
      expect((await guess('2001:db8:1:3::1')).status).toBe(401);
    } finally {
      await gateway.stop();
    }
  });
});

describe('verification attempts by source', () => {
  it("does not let attempts by e-mail use up the budget of the account's own session", async () => {
    const gateway = await startTestGateway({ env: { RATE_LIMIT_VERIFICATIONS_PER_ACCOUNT: '2' } });
    try {
      const signedIn = await post(gateway, '/api/login', {
        email: 'ann@example.com',
        password: validPassword,
      });
      const cookie = cookieFrom(signedIn);
      const byEmail = () =>
        post(gateway, '/api/verify-email', { email: 'ann@example.com', code: '000000' });
      expect((await byEmail()).status).toBe(400);
      expect((await byEmail()).status).toBe(400);
      expect((await byEmail()).status).toBe(429);

      const own = await post(gateway, '/api/verify-email', { code: '000000' }, { cookie });
      expect(own.status).toBe(400);
    } finally {
      await gateway.stop();
    }
  });
});
