/** A throwaway PostgreSQL database per benchmark run, and the default server to create it on. */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';

/** BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL, else the local server. */
export function adminDatabaseUrl(env: NodeJS.ProcessEnv): { url: string; explicit: boolean } {
  const url = env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || env.DATABASE_URL;
  const user = env.PGUSER || env.USER || userInfo().username;
  return url
    ? { url, explicit: true }
    : { url: `postgres://${encodeURIComponent(user)}@127.0.0.1:5432/postgres`, explicit: false };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function postgresReachable(url: string): Promise<string | null> {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export interface ThrowawayDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE gatehouse_bench_<random> on the server of `adminUrl`; drop() removes it. */
export async function createThrowawayDatabase(adminUrl: string): Promise<ThrowawayDatabase> {
  const name = `gatehouse_bench_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
