import { createLogger } from '@underdog/kit';
import { createStandalone, type Standalone } from '../src';
import { browserAt, errorBody, uniqueEmail, type Browser } from './support';

// Issue 24 L5 and I5 on every path a browser has: REST and GraphQL, real services in process.

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';
const invisible = 'Display name must not contain invisible or control characters';
const reserved = 'Display name is reserved for the Underdog staff';
const badImage = "The image ad's content must be an http:// or https:// URL";

/** The first GraphQL error's message and code. */
function graphqlError(body: unknown) {
  const [error] = (body as { errors?: Array<{ message: string; extensions?: { code?: string } }> })
    .errors ?? [{ message: 'no error' }];
  return { message: error?.message, code: error?.extensions?.code };
}

describe('hostile display names and ad URLs over REST and GraphQL (standalone)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
  let devices = 0;
  const browser = () => browserAt(url, { deviceId: `device-hostile-${(devices += 1)}` });
  let adminBrowser: Browser;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        RATE_LIMIT_REGISTRATIONS_PER_IP: '1000',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
    adminBrowser = browser();
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
  });
  afterAll(() => standalone.group.stop());

  it.each([
    ['\u200b\u200b', invisible],
    ['Eve\u202eNIW', invisible],
    ['Аdmin', reserved],
  ])(
    'refuses the display name %j on REST and GraphQL registration',
    async (displayName, message) => {
      const rest = await browser().post('/api/register', {
        email: uniqueEmail('eve'),
        displayName,
        password,
      });
      expect(rest).toEqual({ status: 400, body: errorBody(message, 'VALIDATION_FAILED') });

      const graphql = await browser().graphql(
        'mutation ($input: RegisterInput!) { register(input: $input) { message } }',
        { input: { email: uniqueEmail('eve'), displayName, password } },
      );
      expect(graphqlError(graphql.body)).toEqual({ message, code: 'VALIDATION_FAILED' });
    },
  );

  it('refuses the same names on REST and GraphQL profile updates, keeping the old name', async () => {
    const player = browser();
    const email = uniqueEmail('pat');
    expect(
      (await player.post('/api/register', { email, displayName: 'Pat', password })).status,
    ).toBe(200);
    const rest = await player.put('/api/user/profile', { displayName: 'Adm1n' });
    expect(rest).toEqual({ status: 400, body: errorBody(reserved, 'VALIDATION_FAILED') });
    const graphql = await player.graphql(
      'mutation ($name: String!) { updateProfile(displayName: $name) { displayName } }',
      { name: 'Pat\u0000' },
    );
    expect(graphqlError(graphql.body)).toEqual({ message: invisible, code: 'VALIDATION_FAILED' });
    expect((await player.get('/api/user')).body).toMatchObject({ displayName: 'Pat' });
  });

  it('refuses a javascript: image ad on REST and GraphQL, create and update, and saves nothing', async () => {
    const ad = { title: 'Evil', type: 'image', content: 'javascript:alert(1)' };
    const rest = await adminBrowser.post('/api/admin/advertisements', ad);
    expect(rest).toEqual({ status: 400, body: errorBody(badImage, 'VALIDATION_FAILED') });

    const graphql = await adminBrowser.graphql(
      'mutation ($input: CreateAdvertisementInput!) { createAdvertisement(input: $input) { id } }',
      { input: ad },
    );
    expect(graphqlError(graphql.body)).toEqual({ message: badImage, code: 'VALIDATION_FAILED' });

    const created = await adminBrowser.post('/api/admin/advertisements', {
      ...ad,
      content: 'https://cdn.example/banner.png',
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const update = await adminBrowser.put(`/api/admin/advertisements/${id}`, {
      content: 'javascript:alert(1)',
    });
    expect(update).toEqual({ status: 400, body: errorBody(badImage, 'VALIDATION_FAILED') });

    const listed = (await adminBrowser.get('/api/admin/advertisements')).body as Array<{
      title: string;
      content: string;
    }>;
    expect(listed.filter((saved) => saved.title === 'Evil')).toEqual([
      expect.objectContaining({ content: 'https://cdn.example/banner.png' }),
    ]);
  });
});
