import type { ServiceSecrets } from '../../domain/shared/service-secrets.port.js';
import type { SqlExecutor } from './sql-client.js';

/** `service_secrets`: one row per secret, written once. */
export class SqlServiceSecrets implements ServiceSecrets {
  constructor(private readonly sql: SqlExecutor) {}

  /**
   * Insert-if-absent, then read: the row that won a race is what every caller gets. Two
   * statements, not one: `ON CONFLICT DO NOTHING RETURNING` returns nothing to the loser.
   */
  async obtain(name: string, candidate: Uint8Array): Promise<Uint8Array> {
    await this.sql.query(
      'INSERT INTO service_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, Buffer.from(candidate)],
    );
    const { rows } = await this.sql.query<{ secret: Uint8Array }>(
      'SELECT secret FROM service_secrets WHERE name = $1',
      [name],
    );
    return new Uint8Array(rows[0]!.secret);
  }

  async replace(name: string, current: Uint8Array, next: Uint8Array): Promise<void> {
    await this.sql.query('UPDATE service_secrets SET secret = $3 WHERE name = $1 AND secret = $2', [
      name,
      Buffer.from(current),
      Buffer.from(next),
    ]);
  }
}
