/**
 * An embedder's own session store (`createGatehouse({ sessionStore })`): `/readyz` names it as the
 * deployment's own (`module`), not the store the configuration would have used, and asks its
 * readiness only when the store offers a check (an optional capability: none is made up).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { memorySessionSide } from '../../src/adapters/memory/memory-session-side.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver, type ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import type { SessionSide } from '../../src/domain/session/session-side.port.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';
import { openTestPglite } from '../support/databases.js';
import { TEST_ENV } from '../support/test-server.js';

describe("an embedder's own session store", () => {
  let gatehouse: Gatehouse | undefined;
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.close(0);
    await gatehouse?.close();
  });

  async function readyz(sessionStore: SessionSide): Promise<{ status: number; body: unknown }> {
    const config = loadConfig({ ...TEST_ENV, SESSION_STORE: 'sql' });
    gatehouse = await createGatehouseOver(await openTestPglite(), { config, sessionStore });
    server = await listen(gatehouse.app, 0, '127.0.0.1', config.http);
    const response = await fetch(`${server.url}/readyz`);
    return { status: response.status, body: await response.json() };
  }

  it('is named `module` by /readyz, and without a readiness check the database alone decides', async () => {
    const { isReady: _none, ...withoutCheck } = memorySessionSide(systemClock);
    expect(await readyz(withoutCheck)).toEqual({
      status: 200,
      body: { status: 'ready', session_store: 'module' },
    });
  });

  it('is asked for its readiness when it offers a check', async () => {
    const side = { ...memorySessionSide(systemClock), isReady: async () => false };
    expect(await readyz(side)).toEqual({
      status: 503,
      body: { status: 'unavailable', session_store: 'module' },
    });
  });
});
