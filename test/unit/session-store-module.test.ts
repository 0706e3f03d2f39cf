/**
 * SESSION_STORE_MODULE as configuration (it and SESSION_STORE agree, or start-up stops naming the
 * variable), the loading of the module (a default export called with the environment, whose
 * answer must have the shape of a SessionSide), and SESSION_STORE=memory beside a shared database.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openSessionStoreModule,
  SessionStoreModuleError,
} from '../../src/adapters/modules/session-store-module.js';
import { ConfigError, loadConfig, sessionStoreName } from '../../src/boot/config/config.js';
import { openSessionSide } from '../../src/boot/open-session-side.js';
import { systemClock } from '../../src/domain/shared/clock.port.js';

function problemsOf(environment: Record<string, string>): string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('SESSION_STORE_MODULE in the configuration', () => {
  it('makes the session store `module` when SESSION_STORE is unset or module, with the environment', () => {
    for (const environment of [
      { SESSION_STORE_MODULE: './my-store.js', MY_TABLE: 'sessions' },
      { SESSION_STORE: 'module', SESSION_STORE_MODULE: './my-store.js', MY_TABLE: 'sessions' },
    ]) {
      const config = loadConfig(environment);
      expect(config.sessionStore).toEqual({ kind: 'module', specifier: './my-store.js', environment });
      expect(sessionStoreName(config)).toBe('module');
    }
  });

  it('refuses a SESSION_STORE that names another store, naming both variables', () => {
    for (const store of ['sql', 'memory']) {
      expect(problemsOf({ SESSION_STORE: store, SESSION_STORE_MODULE: './my-store.js' })).toEqual([
        `SESSION_STORE_MODULE: is set but SESSION_STORE is ${store}; unset SESSION_STORE (or set it to module) to use the module, or unset SESSION_STORE_MODULE`,
      ]);
    }
  });

  it('refuses SESSION_STORE=module without SESSION_STORE_MODULE', () => {
    expect(problemsOf({ SESSION_STORE: 'module' })).toEqual([
      'SESSION_STORE: module needs SESSION_STORE_MODULE (the package or path of the store)',
    ]);
  });
});

describe('SESSION_STORE=memory beside a database', () => {
  const shared = { SESSION_STORE: 'memory', DATABASE_URL: 'postgres://db.example/gatehouse' };

  it('is refused with DATABASE_URL (instances may share it), naming the way to say it is right', () => {
    const [problem, ...others] = problemsOf(shared);
    expect(others).toEqual([]);
    expect(problem).toMatch(/^SESSION_STORE: memory keeps sessions in this process only, but DATABASE_URL/);
    expect(problem).toContain('SESSION_STORE_MEMORY_ALLOW_SHARED=true');
  });

  it('is accepted with SESSION_STORE_MEMORY_ALLOW_SHARED=true, and on the embedded database', () => {
    expect(loadConfig({ ...shared, SESSION_STORE_MEMORY_ALLOW_SHARED: 'true' }).sessionStore.kind).toBe(
      'memory',
    );
    expect(loadConfig({ SESSION_STORE: 'memory' }).sessionStore.kind).toBe('memory');
  });
});

describe('opening the module SESSION_STORE_MODULE names', () => {
  let folder: string;
  const write = async (name: string, source: string) => {
    await writeFile(join(folder, name), source);
    return `./${name}`;
  };
  const STORE = `
    const sessions = { capabilities: {} };
    for (const name of ['create', 'findByTokenHash', 'touch', 'deleteByTokenHash', 'listForUser',
      'deleteAllForUser', 'deleteByHandle', 'deleteBySso', 'evictBeyond']) sessions[name] = async () => null;
    const throttle = { capabilities: {}, reserve: async () => ({ granted: true, used: 1 }),
      release: async () => {}, reset: async () => {} };
  `;

  /** The problems a refused module is named for, in the order the error gives them. */
  const refusalOf = async (specifier: string): Promise<string[]> => {
    const error = await openSessionStoreModule(specifier, {}, folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionStoreModuleError);
    const prefix = `SESSION_STORE_MODULE "${specifier}": its default export did not give a SessionSide: `;
    const { message } = error as Error;
    expect(message.startsWith(prefix)).toBe(true);
    return message.slice(prefix.length).split('; ');
  };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gatehouse-store-module-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('calls the default export with the environment and gives what it returns (or resolves to)', async () => {
    const specifier = await write(
      'good.mjs',
      `${STORE} export default async (environment) => ({ sessions, throttle, close: async () => {}, table: environment.MY_TABLE });`,
    );
    const side = (await openSessionStoreModule(specifier, { MY_TABLE: 'sessions' }, folder)) as unknown as {
      table: string;
      isReady?: unknown;
    };
    expect(side.table).toBe('sessions');
    // No readiness check offered: none is made up.
    expect(side.isReady).toBeUndefined();
  });

  it('names the variable and every missing part when the answer is not a SessionSide', async () => {
    const specifier = await write(
      'partial.mjs',
      `${STORE} delete sessions.evictBeyond; sessions.capabilities.paging = {};
       export default () => ({ sessions, throttle: { reserve() {} }, isReady: true });`,
    );
    expect(await refusalOf(specifier)).toEqual([
      'sessions.evictBeyond is not a function',
      'sessions.capabilities.paging.listPage is not a function',
      'throttle.release is not a function',
      'throttle.reset is not a function',
      'throttle.capabilities is not an object (give {} for none)',
      'close is not a function',
      'isReady is not a function (leave it out when the store has no readiness check)',
    ]);
  });

  it('knows every optional capability of the ports, and checks the operation each declares', async () => {
    const declared = await write(
      'declared.mjs',
      `${STORE}
       sessions.capabilities = { replace: { replaceSession: async () => null }, endAll: { deleteAll: async () => 0 } };
       throttle.capabilities = { settle: { resetAndRelease: async () => {} }, reserveEach: { reserveEach: async () => [] } };
       export default () => ({ sessions, throttle, close: async () => {} });`,
    );
    await expect(openSessionStoreModule(declared, {}, folder)).resolves.toBeDefined();
    const hollow = await write(
      'hollow.mjs',
      `${STORE}
       sessions.capabilities = { replace: {} };
       throttle.capabilities = { settle: {}, reserveEach: {}, batch: {} };
       export default () => ({ sessions, throttle, close: async () => {} });`,
    );
    expect(await refusalOf(hollow)).toEqual([
      'sessions.capabilities.replace.replaceSession is not a function',
      'throttle.capabilities.settle.resetAndRelease is not a function',
      'throttle.capabilities.reserveEach.reserveEach is not a function',
      'throttle.capabilities.batch is no capability Gatehouse knows',
    ]);
  });

  it('names the variable when the module cannot be loaded or exports no function', async () => {
    const none = await openSessionStoreModule('./missing.mjs', {}, folder).catch((caught: unknown) => caught);
    expect((none as Error).message).toMatch(/^SESSION_STORE_MODULE "\.\/missing\.mjs": cannot be loaded \(/);
    const specifier = await write('object.mjs', 'export default { sessions: {} };');
    const notAFunction = await openSessionStoreModule(specifier, {}, folder).catch(
      (caught: unknown) => caught,
    );
    expect((notAFunction as Error).message).toBe(
      `SESSION_STORE_MODULE "${specifier}": its default export must be a function of the environment returning the session store (SessionSide)`,
    );
  });

  it('is a SERVICE_UNAVAILABLE when the store cannot open (its database does not answer)', async () => {
    const specifier = await write(
      'down.mjs',
      `export default async () => { throw new Error('connect ECONNREFUSED'); };`,
    );
    const error = await openSessionStoreModule(specifier, {}, folder).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterS: 5 });
    expect((error as Error).message).toContain(`SESSION_STORE_MODULE "${specifier}"`);
  });

  it('stops start-up as a configuration error, naming the variable', async () => {
    const config = loadConfig({ SESSION_STORE_MODULE: join(folder, 'missing.mjs') });
    const error = await openSessionSide(config, systemClock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^SESSION_STORE_MODULE "/)]);
  });
});
