/**
 * The longest ids Gatehouse allows, in a non-ASCII script, through the documented nginx recipe.
 * Forward auth percent-encodes them (contract 4a): 200 CJK characters are 1800 bytes a header, so
 * the four ids outgrow nginx's default `proxy_buffer_size` (one memory page), nginx refused the
 * check's answer as "upstream sent too big header" and the user got 503. The recipe sizes the
 * buffer for them (docs/gateways.md).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTIFIER_MAX_LENGTH } from '../../src/domain/user/user-rules.js';
import { USERNAME_MAX_LENGTH } from '../../src/domain/user/username.js';
import { type Gateway, IDENTITY_HEADERS, startGateway } from '../support/gateways.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
/** `length` characters of three UTF-8 bytes each (nine once percent-encoded), starting at `first`. */
const cjk = (first: number, length: number) =>
  Array.from({ length }, (_, i) => String.fromCodePoint(first + i)).join('');

describe('the longest non-ASCII ids through nginx', () => {
  let gatehouse: TestServer;
  let gateway: Gateway;
  let app: Server;
  const user = {
    userId: cjk(0x4e00, IDENTIFIER_MAX_LENGTH),
    username: cjk(0x5000, USERNAME_MAX_LENGTH),
    tenantId: cjk(0x6000, IDENTIFIER_MAX_LENGTH),
    groupId: cjk(0x7000, IDENTIFIER_MAX_LENGTH),
  };

  beforeAll(async () => {
    gatehouse = await startTestServer();
    await seedUser(gatehouse, { ...user, password: PASSWORD });
    app = createServer((request, response) => {
      const seen: Record<string, string> = {};
      for (const header of IDENTITY_HEADERS)
        seen[header] = String(request.headers[header.toLowerCase()] ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const { port } = app.address() as { port: number };
    gateway = await startGateway('nginx', gatehouse.url, `http://127.0.0.1:${port}`);
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise((resolve) => app?.close(resolve));
    await gatehouse?.close();
  });

  it('passes them on to the application, not a 503', async () => {
    const client = new TestClient(gatehouse.url);
    expect(
      (await client.post('/api/v1/login/', { username: user.username, password: PASSWORD })).status,
    ).toBe(200);
    const response = await new TestClient(gateway.url).get('/orders', {
      cookie: `sessionid=${client.session}`,
    });
    expect(response.status).toBe(200);
    const seen = response.body as Record<string, string>;
    expect(seen['Gatehouse-Username']!.length).toBe(9 * USERNAME_MAX_LENGTH);
    expect({
      userId: decodeURIComponent(seen['Gatehouse-User-Id'] ?? ''),
      username: decodeURIComponent(seen['Gatehouse-Username'] ?? ''),
      tenantId: decodeURIComponent(seen['Gatehouse-Tenant-Id'] ?? ''),
      groupId: decodeURIComponent(seen['Gatehouse-Group-Id'] ?? ''),
    }).toEqual(user);
  });
});
