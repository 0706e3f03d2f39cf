/**
 * Issue 30, item 6: the hexagon's rules in `.dependency-cruiser.cjs` (run over src/ by
 * `npm run check:architecture`). Each rule is shown failing on a small tree that breaks it and
 * passing on a clean tree of our layout (src/boot the wiring room). The trees live in
 * test/fixtures/architecture.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';

const ROOT = projectRoot();
const FIXTURES = join(ROOT, 'test/fixtures/architecture');
const ruleSet: IConfiguration = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs'));

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Runs the project's rule set over one fixture's src/, as `npm run check:architecture` does. */
async function violations(fixture: string): Promise<Violation[]> {
  const { forbidden, options } = ruleSet;
  const { output } = await cruise(['src'], {
    ...options,
    baseDir: join(FIXTURES, fixture),
    ruleSet: { forbidden },
    validate: true,
  });
  const result = output as ICruiseResult;
  expect(result.summary.totalCruised).toBeGreaterThan(0);
  return result.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }));
}

/** The package a resolved path lies in (`../../node_modules/koa/lib/x.js` → `koa`). */
const packageOf = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path;

describe('architecture rules (.dependency-cruiser.cjs)', () => {
  it('names a reason for every rule and makes each one an error', () => {
    for (const rule of ruleSet.forbidden ?? []) {
      expect(rule.severity, rule.name).toBe('error');
      expect(rule.comment, rule.name).toBeTruthy();
    }
  });

  it('passes a clean tree', async () => {
    expect(await violations('clean-boot-layout')).toEqual([]);
  });

  it('refuses a cycle of type-only imports', async () => {
    const found = await violations('type-only-cycle');
    // One violation names the cycle, from the first of its files the tool reached.
    expect(found).toEqual([
      {
        rule: 'no-cycle',
        from: 'src/application/login-events.ts',
        to: 'src/application/session-ending.ts',
      },
    ]);
  });

  it('refuses a package in the domain, frameworks and stores and inversify alike', async () => {
    const found = await violations('domain-imports-packages');
    const inDomain = found.filter(({ rule }) => rule === 'domain-imports-only-domain');
    expect(inDomain.map(({ to }) => packageOf(to)).sort()).toEqual(
      ['fastify', 'inversify', 'ioredis', 'koa', 'openid-client', 'pg', 'zod'].sort(),
    );
    // inversify breaks two rules at once: it is outside the domain and outside the wiring room.
    expect(found.filter(({ rule }) => rule !== 'domain-imports-only-domain')).toEqual([
      expect.objectContaining({ rule: 'inversify-only-in-wiring-room' }),
    ]);
  });

  it('refuses an adapter in the domain', async () => {
    expect(await violations('domain-imports-adapter')).toEqual([
      {
        rule: 'domain-imports-only-domain',
        from: 'src/domain/session/session.ts',
        to: 'src/adapters/sql/sql-session-row.ts',
      },
    ]);
  });

  it('refuses the application an adapter, the wiring room, the command, a package', async () => {
    const found = await violations('application-imports-outside');
    expect(new Set(found.map(({ rule }) => rule))).toEqual(
      new Set(['application-imports-only-domain-and-application']),
    );
    expect(found.map(({ to }) => packageOf(to)).sort()).toEqual([
      'src/adapters/sql/sql-session-row.ts',
      'src/boot/config/config.ts',
      'src/boot/tokens.ts',
      'src/cli/command.ts',
      'zod',
    ]);
  });

  it("refuses an adapter (a framework guard included) the wiring room's files", async () => {
    const found = await violations('adapters-import-wiring-room');
    expect(found.map(({ rule, from, to }) => `${rule}: ${from} -> ${to}`).sort()).toEqual([
      'adapters-not-to-wiring-room: src/adapters/http/routes.ts -> src/boot/config/config.ts',
      'adapters-not-to-wiring-room: src/adapters/http/routes.ts -> src/boot/tokens.ts',
      'adapters-not-to-wiring-room: src/guards/guard-settings.ts -> src/boot/gatehouse.ts',
    ]);
  });

  it('refuses the command an adapter', async () => {
    expect(await violations('command-imports-adapter')).toEqual([
      { rule: 'command-not-to-adapters', from: 'src/cli/cli.ts', to: 'src/adapters/sql/data-dir-lock.ts' },
    ]);
  });

  it('refuses inversify outside the wiring room, as a type or a re-export too', async () => {
    const found = await violations('inversify-outside-wiring-room');
    expect(found.map(({ rule, from, to }) => `${rule}: ${from} -> ${packageOf(to)}`).sort()).toEqual([
      'inversify-only-in-wiring-room: src/cli/cli.ts -> inversify',
      'inversify-only-in-wiring-room: src/index.ts -> inversify',
    ]);
  });

  it('refuses an import it cannot follow (no rule could check it)', async () => {
    expect(await violations('unresolvable-import')).toEqual([
      { rule: 'resolvable', from: 'src/cli/cli.ts', to: './missing.js' },
    ]);
  });
});
