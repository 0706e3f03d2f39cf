/**
 * The embedding facade hands an embedder ports and service objects only, every one of them the
 * container's own (the container the service and the command also build), and no database type.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig } from '../../src/boot/config/config.js';
import {
  createGatehouseOver,
  type ServiceGatehouse as Gatehouse,
  type GatehouseOptions,
} from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import type { Store } from '../../src/domain/store.port.js';
import { openTestPglite } from '../support/databases.js';
import { TEST_ENV } from '../support/test-server.js';

describe('createGatehouse', () => {
  let gatehouse: Gatehouse;
  beforeAll(async () => {
    gatehouse = await createGatehouseOver(await openTestPglite(), {
      config: loadConfig({ ...TEST_ENV, LOG_LEVEL: 'silent', SESSION_STORE: 'memory' }),
    });
  });
  afterAll(async () => {
    await gatehouse?.close();
  });

  it("hands out the container's objects, not objects of its own", () => {
    const { container } = gatehouse;
    expect(gatehouse.store).toBe(container.get(TOKENS.Store));
    expect(gatehouse.authenticator).toBe(container.get(TOKENS.SessionAuthenticator));
    expect(gatehouse.purger).toBe(container.get(TOKENS.Purger));
    expect(gatehouse.metrics).toBe(container.get(TOKENS.Metrics));
    expect(gatehouse.config).toBe(container.get(TOKENS.Config));
    expect(gatehouse.logger).toBe(container.get(TOKENS.Logger));
  });

  it('names no database: the store is the Store port; no SQL store or client goes in or out', () => {
    expect(Object.keys(gatehouse)).not.toContain('database');
    expectTypeOf<Gatehouse>().not.toHaveProperty('database');
    expectTypeOf<Gatehouse['store']>().toEqualTypeOf<Store>();
    expectTypeOf<GatehouseOptions>().not.toHaveProperty('sqlClient');
  });

  it('serves through the store it hands out', async () => {
    expect(await gatehouse.store.isReady()).toBe(true);
  });
});
