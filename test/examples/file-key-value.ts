/**
 * A key/value database shared by processes, for the tests that run the example store in the real
 * service and the real `gatehouse` command: one file per key in a folder, each value forgotten at
 * its expiry. An `outage` file in the folder makes every call fail, as a database that stopped
 * answering does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyValue } from './key-value-session-store.js';

/** The file whose presence is the database's outage. */
export const OUTAGE_FILE = 'outage';

export async function fileKeyValue(folder: string): Promise<KeyValue & { answers(): boolean }> {
  await mkdir(join(folder, 'keys'), { recursive: true });
  const pathOf = (key: string) => join(folder, 'keys', createHash('sha256').update(key).digest('hex'));
  const answering = () => {
    if (existsSync(join(folder, OUTAGE_FILE))) throw new Error('the key/value database does not answer');
  };
  const live = async (key: string): Promise<string | null> => {
    let raw: string;
    try {
      raw = await readFile(pathOf(key), 'utf8');
    } catch {
      return null;
    }
    const entry = JSON.parse(raw) as { value: string; expiresAt: string | null };
    if (entry.expiresAt && Date.parse(entry.expiresAt) <= Date.now()) return null;
    return entry.value;
  };
  return {
    answers: () => !existsSync(join(folder, OUTAGE_FILE)),
    async get(key) {
      answering();
      return live(key);
    },
    async set(key, value, expiresAt) {
      answering();
      // Written whole, then renamed into place: a reader never sees half a value.
      const scratch = `${pathOf(key)}.${randomBytes(6).toString('hex')}`;
      await writeFile(scratch, JSON.stringify({ value, expiresAt: expiresAt?.toISOString() ?? null }));
      await rename(scratch, pathOf(key));
    },
    async delete(key) {
      answering();
      const present = (await live(key)) !== null;
      try {
        await unlink(pathOf(key));
      } catch {
        return false;
      }
      return present;
    },
  };
}
