/**
 * Runs once per `vitest run`, in the main process: prepares PGlite data-directory templates so a
 * test opens a fresh embedded database in ~0.6 s instead of ~7 s (initdb).
 *
 * Two templates are provided to the workers (see test/support/databases.ts):
 * - `pgliteTemplatePath`: every migration applied;
 * - `pgliteEmptyTemplatePath`: a bare database, for the migration tests.
 *
 * Both are cached under node_modules/.cache/gatehouse-test, keyed by the PGlite version and (for
 * the migrated one) a hash of the migration files, so an unchanged tree skips initdb entirely.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadMigrations, migrate } from '../../src/adapters/sql/migrator.js';
import { PgliteSqlClient } from '../../src/adapters/sql/pglite-sql-client.js';
import { projectRoot } from '../../src/boot/project-root.js';
import { compileSourceForChildren } from './compiled-source.js';
import { startTestCluster } from './redis-cluster.js';
import { startTestRedis } from './redis-server.js';
import { removeStaleEntries } from './stale-entries.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite data directory (uncompressed tar) with every migration applied. */
    pgliteTemplatePath: string;
    /** A PGlite data directory (uncompressed tar) without any migration. */
    pgliteEmptyTemplatePath: string;
    /** A redis-server of this run (its own port, nothing on disk), for the `[redis]` suites. */
    redisUrl: string;
    /** A Redis Cluster of this run (3 masters, 3 replicas), `host:port,...`, for `[redis-cluster]`. */
    redisClusterNodes: string;
    /** This run's compiled copy of src/, for the child processes (test/support/compiled-source.ts). */
    compiledSourcePath: string;
  }
}

function pgliteVersion(root: string): string {
  try {
    const pkg = JSON.parse(
      readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
    );
    return String(pkg.version);
  } catch {
    return 'unknown';
  }
}

/** Writes via a temporary file and a rename, so a concurrent run never reads half a template. */
async function writeAtomically(path: string, data: Blob): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, new Uint8Array(await data.arrayBuffer()));
  renameSync(temporary, path);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = projectRoot();
  const migrations = loadMigrations(join(root, 'migrations'));
  const version = pgliteVersion(root).replace(/[^\w.-]/g, '_');
  const migrationsHash = createHash('sha256')
    .update(version)
    .update(JSON.stringify(migrations.map((migration) => [migration.name, migration.checksum])))
    .digest('hex')
    .slice(0, 16);

  const dir = join(root, 'node_modules', '.cache', 'gatehouse-test');
  mkdirSync(dir, { recursive: true });
  const emptyPath = join(dir, `pglite-empty-${version}.tar`);
  const migratedPath = join(dir, `pglite-migrated-${migrationsHash}.tar`);

  if (!existsSync(emptyPath) || !existsSync(migratedPath)) {
    const client = await PgliteSqlClient.open();
    try {
      if (!existsSync(emptyPath)) await writeAtomically(emptyPath, await client.db.dumpDataDir('none'));
      await migrate(client, migrations);
      await writeAtomically(migratedPath, await client.db.dumpDataDir('none'));
    } finally {
      await client.close();
    }
  }
  // Templates of other versions, once a day old (a concurrent run may still use a fresh one).
  const current = new Set([`pglite-empty-${version}.tar`, `pglite-migrated-${migrationsHash}.tar`]);
  removeStaleEntries(dir, (file) => file.startsWith('pglite-') && !current.has(file));

  project.provide('pgliteTemplatePath', migratedPath);
  project.provide('pgliteEmptyTemplatePath', emptyPath);

  // One Redis for the whole run: each test server takes a key prefix of its own.
  const [redis, cluster, compiled] = await Promise.all([
    startTestRedis(),
    startTestCluster(),
    compileSourceForChildren(root),
  ]);
  project.provide('redisUrl', redis.url);
  project.provide('redisClusterNodes', cluster.nodes.join(','));
  project.provide('compiledSourcePath', compiled.dir);
  return async () => {
    await Promise.all([redis.close(), cluster.close()]);
    compiled.remove();
  };
}
