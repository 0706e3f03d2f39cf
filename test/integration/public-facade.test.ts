/**
 * What the package hands an embedder (`createGatehouse` from the package entry): the app, the
 * metrics, the configuration, the logger, the guard source, the administration use cases and
 * close(). No container and no store, in its type or in the object: an embedder reaches the
 * database through the use cases, as the service's own code does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createGatehouse, type Gatehouse, loadConfig } from '../../src/index.js';
import { TEST_ENV } from '../support/test-server.js';

describe('the package facade (createGatehouse)', () => {
  let dataDir: string;
  let gatehouse: Gatehouse;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-public-facade-'));
    gatehouse = await createGatehouse({
      config: loadConfig({ ...TEST_ENV, LOG_LEVEL: 'silent', DATA_DIR: dataDir, SESSION_STORE: 'memory' }),
    });
  });
  afterAll(async () => {
    await gatehouse?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('exposes no container and no store, in its type or in the object', () => {
    expectTypeOf<Gatehouse>().not.toHaveProperty('container');
    expectTypeOf<Gatehouse>().not.toHaveProperty('store');
    expect(Object.keys(gatehouse).sort()).toEqual(
      ['admin', 'app', 'authenticator', 'close', 'config', 'logger', 'metrics', 'metricsApp'].sort(),
    );
    expect(gatehouse).not.toHaveProperty('container');
    expect(gatehouse).not.toHaveProperty('store');
  });

  it('administers through the use cases it hands out', async () => {
    await gatehouse.admin.directory.addTenant({ id: 'acme', name: null });
    await expect(gatehouse.admin.directory.addTenant({ id: 'acme', name: null })).rejects.toMatchObject({
      code: expect.any(String),
    });
    await expect(gatehouse.admin.audit.listForUser('nobody-here', { limit: 10 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(Array.isArray(await gatehouse.admin.audit.listSince(new Date(0), 10))).toBe(true);
  });
});
