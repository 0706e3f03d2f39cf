/**
 * What a registered provider costs one instance, measured in this process with the service's own
 * parts: the directory built from the registry (every provider's OpenID client and interpreter,
 * as an instance builds them at start-up), the heap it keeps after a full garbage collection, and
 * how long a reload takes when the registry did not change and when one provider did.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ProviderDirectory } from '../../src/application/sso/provider-directory.js';
import type { SsoProviderParts } from '../../src/application/sso/sso-providers.js';
import { registeredProviderParts } from '../../src/composition/registered-provider-parts.js';
import { loadConfig } from '../../src/config/config.js';
import { type BenchRegistry, BY_BENCH, customerId } from './registry.js';
import { round } from './stats.js';

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

/** Loads a directory, measures its reloads, and returns it with the timings (its caller drops it). */
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

export async function directoryCost(target: BenchRegistry, key: string): Promise<DirectoryCost> {
  const gc = fullGc();
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    TOKEN_ENCRYPTION_KEY: key,
    OIDC_ALLOW_INSECURE_HTTP: 'true',
  });
  const build = registeredProviderParts(config);
  // Warm: the interpreter module and the client code are loaded once per process, not per provider.
  await new ProviderDirectory<SsoProviderParts>(target.registry, null, build).refresh();
  let measured: Awaited<ReturnType<typeof loadAndReload>> | null = await loadAndReload(target, build);
  const { providers, loadMs, unchangedMs, changeMs, rebuildMs } = measured;
  gc();
  gc();
  const withDirectory = process.memoryUsage().heapUsed;
  // What the directory keeps: the heap with it less the heap once it is dropped, the rest of the
  // process being the same on both sides.
  measured = null;
  gc();
  gc();
  const kept = withDirectory - process.memoryUsage().heapUsed;
  return {
    providers,
    load_ms: loadMs,
    heap_per_provider_kib: round(kept / 1024 / Math.max(1, providers), 2),
    heap_total_mb: round(kept / 1048576, 1),
    refresh_unchanged_ms: unchangedMs,
    refresh_after_change_ms: changeMs,
    refresh_after_rebuild_ms: rebuildMs,
  };
}
