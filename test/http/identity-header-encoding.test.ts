/**
 * Contract 4a's identity headers carry visible ASCII only: anything else is percent-encoded, and
 * so is a value holding `%` itself. Otherwise the application, which decodes the header, would
 * read user `zo%C3%AB` as `zoë`, another account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

describe('forward auth: identity headers a gateway can pass on unchanged', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    await seedUser(server, {
      username: 'zo%C3%AB',
      password: PASSWORD,
      userId: 'u%41',
      tenantId: 't%1',
      groupId: 'g%1',
    });
    await seedUser(server, {
      username: 'ann smith',
      password: PASSWORD,
      userId: 'u ann',
      tenantId: 't é',
      groupId: 'g é',
    });
    await seedUser(server, {
      username: 'ann@example.com',
      password: PASSWORD,
      userId: 'u/1',
      tenantId: 't:1',
      groupId: 'g=1',
    });
  });
  afterAll(() => server?.close());

  async function identity(username: string) {
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
    const response = await client.get('/api/v1/session/check/');
    expect(response.status).toBe(204);
    return ['user-id', 'username', 'tenant-id', 'group-id'].map((name) =>
      response.headers.get(`gatehouse-${name}`),
    );
  }

  it('percent-encodes a value that holds %, so it decodes to itself', async () => {
    const headers = await identity('zo%C3%AB');
    expect(headers).toEqual(['u%2541', 'zo%25C3%25AB', 't%251', 'g%251']);
    expect(headers.map((value) => decodeURIComponent(value!))).toEqual(['u%41', 'zo%C3%AB', 't%1', 'g%1']);
  });

  it('percent-encodes a space and what is not ASCII, in every identity header', async () => {
    expect(await identity('ann smith')).toEqual(['u%20ann', 'ann%20smith', 't%20%C3%A9', 'g%20%C3%A9']);
  });

  it('passes visible ASCII without % as it is, even what a URI component would escape', async () => {
    expect(await identity('ann@example.com')).toEqual(['u/1', 'ann@example.com', 't:1', 'g=1']);
  });
});
