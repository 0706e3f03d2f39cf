/**
 * What a registered provider costs one instance, measured in this process with the service's own
 * parts: the directory built from the registry (every provider's OpenID client and interpreter,
 * as an instance builds them at start-up), the heap it keeps after a full garbage collection, how
 * long a reload takes when the registry did not change and when one provider did, and the lookup
 * a login makes with one provider and with all of them.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { registeredProviderParts } from '../../src/adapters/openid/provider-parts.js';
import { ProviderDirectory } from '../../src/application/sso/provider-directory.js';
import type { SsoProviderParts } from '../../src/application/sso/sso-providers.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { type BenchRegistry, BY_BENCH, customerId } from './registry.js';
import { median, round } from './stats.js';

export interface DirectoryCost {
  providers: number;
  /** The first refresh: list every provider, open its secrets, build its adapters. */
  load_ms: number;
  /** Heap kept by the loaded directory, after a full collection, divided by its providers. */
  heap_per_provider_kib: number;
  heap_total_mb: number;
  /** A poll that finds the version unchanged (one primary-key read). */
  refresh_unchanged_ms: number;
  /** After one provider was disabled: the whole list read again, nothing built. */
  refresh_after_change_ms: number | null;
  /** After it was enabled again: the list read again and that one provider rebuilt. */
  refresh_after_rebuild_ms: number | null;
  /** Mean time of the login's provider lookup by redirect URI, 1 provider against all (median of 6 x 1e6). */
  select_ns: { one: number; many: number };
}

function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return round(performance.now() - started);
}

/** Loads a directory and measures its reloads. */
async function loadAndReload(target: BenchRegistry, build: ReturnType<typeof registeredProviderParts>) {
  const directory = new ProviderDirectory<SsoProviderParts>(target.registry, null, build);
  const loadMs = await timed(() => directory.refresh());
  const providers = directory.entries().length;
  const unchangedMs = await timed(() => directory.refresh());
  let changeMs: number | null = null;
  let rebuildMs: number | null = null;
  if (providers > 1) {
    const changed = customerId(1);
    await target.registry.setEnabled(changed, false, BY_BENCH());
    changeMs = await timed(() => directory.refresh());
    await target.registry.setEnabled(changed, true, BY_BENCH());
    rebuildMs = await timed(() => directory.refresh());
  }
  return { directory, providers, loadMs, unchangedMs, changeMs, rebuildMs };
}

/** Mean time of one `select` (the lookup every login makes), ns, over `count` calls. */
function selectNs(directory: ProviderDirectory<SsoProviderParts>, uri: string, count: number): number {
  let found = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) if (directory.select(uri)) found++;
  const ns = Number(process.hrtime.bigint() - started) / count;
  if (found !== count) throw new Error(`select(${uri}) found no provider`);
  return round(ns, 1);
}

export async function directoryCost(
  one: BenchRegistry,
  many: BenchRegistry,
  key: string,
  measuredUri: string,
): Promise<DirectoryCost> {
  const gc = fullGc();
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    TOKEN_ENCRYPTION_KEY: key,
    OIDC_ALLOW_INSECURE_HTTP: 'true',
  });
  const build = registeredProviderParts(config.sso);
  // Warm: the interpreter module and the client code are loaded once per process, not per provider.
  const single = new ProviderDirectory<SsoProviderParts>(one.registry, null, build);
  await single.refresh();
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const measured = await loadAndReload(many, build);
  gc();
  gc();
  const kept = process.memoryUsage().heapUsed - before;
  // The one lookup a login makes that depends on how many providers there are, interleaved.
  const lookups = { one: [] as number[], many: [] as number[] };
  for (let round = 0; round < 6; round++) {
    lookups.one.push(selectNs(single, measuredUri, 1_000_000));
    lookups.many.push(selectNs(measured.directory, measuredUri, 1_000_000));
  }
  return {
    providers: measured.providers,
    load_ms: measured.loadMs,
    heap_per_provider_kib: round(kept / 1024 / Math.max(1, measured.providers), 2),
    heap_total_mb: round(kept / 1048576, 1),
    refresh_unchanged_ms: measured.unchangedMs,
    refresh_after_change_ms: measured.changeMs,
    refresh_after_rebuild_ms: measured.rebuildMs,
    select_ns: { one: median(lookups.one), many: median(lookups.many) },
  };
}
