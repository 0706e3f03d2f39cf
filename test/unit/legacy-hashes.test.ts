/**
 * Issue 11, finding 8: imported legacy hashes cannot carry a cost that starves other logins,
 * their verifications never take every hashing thread, and a cheap one answers no sooner than
 * an argon2id verification would.
 */
import { pbkdf2Sync } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import { ConcurrencyGate } from '../../src/adapters/password/concurrency-gate.js';

const PASSWORD = 'an imported passphrase';

function django(iterations: number, password = PASSWORD): string {
  const key = pbkdf2Sync(password, 'somesalt', iterations, 32, 'sha256').toString('base64');
  return `pbkdf2_sha256$${iterations}$somesalt$${key}`;
}

/** Counts dummy verifications and how many legacy verifications ran at once. */
class ObservedHasher extends Argon2PasswordHasher {
  dummies = 0;
  override verifyDummy(password: string): Promise<false> {
    this.dummies += 1;
    return super.verifyDummy(password);
  }
}

describe('legacy hash bounds', () => {
  const hasher = new Argon2PasswordHasher({ memoryKiB: 1024, timeCost: 1 });

  it('accepts costs within the bounds and refuses those beyond them', () => {
    expect(hasher.isSupportedHash(django(1_500_000).replace(/\$[^$]+$/, `$${'A'.repeat(43)}=`))).toBe(true);
    expect(hasher.isSupportedHash(`pbkdf2_sha256$1500001$somesalt$${'A'.repeat(43)}=`)).toBe(false);
    expect(hasher.isSupportedHash(`$2b$14$${'a'.repeat(53)}`)).toBe(true);
    expect(hasher.isSupportedHash(`$2b$15$${'a'.repeat(53)}`)).toBe(false);
    const argon = (m: number, t: number, p: number) =>
      `$argon2id$v=19$m=${m},t=${t},p=${p}$c2FsdHNhbHRzYWx0$${'A'.repeat(43)}`;
    expect(hasher.isSupportedHash(argon(65_536, 10, 4))).toBe(true);
    expect(hasher.isSupportedHash(argon(65_537, 2, 1))).toBe(false);
    expect(hasher.isSupportedHash(argon(19_456, 11, 1))).toBe(false);
    expect(hasher.isSupportedHash(argon(19_456, 2, 5))).toBe(false);
  });

  it('still verifies hashes made with configured parameters above the bounds', async () => {
    const strong = new Argon2PasswordHasher({ memoryKiB: 70_000, timeCost: 1 });
    const stored = await strong.hash(PASSWORD);
    expect(strong.isSupportedHash(stored)).toBe(true);
    expect(await strong.verify(stored, PASSWORD)).toBe(true);
  });

  it('verifies a stored hash beyond the bounds as a dummy: false, without its cost', async () => {
    const observed = new ObservedHasher({ memoryKiB: 1024, timeCost: 1 });
    const hostile = `pbkdf2_sha256$9000000$somesalt$${'A'.repeat(43)}=`;
    expect(await observed.verify(hostile, PASSWORD)).toBe(false);
    expect(observed.dummies).toBe(1);
  });
});

describe('legacy verifications', () => {
  it('run alongside a dummy argon2id verification, so a cheap one answers no sooner', async () => {
    const observed = new ObservedHasher({ memoryKiB: 1024, timeCost: 1 });
    const cheap = bcrypt.hashSync(PASSWORD, 4);
    expect(await observed.verify(cheap, PASSWORD)).toBe(true);
    expect(await observed.verify(django(1000), PASSWORD)).toBe(true);
    expect(await observed.verify(django(1000), 'wrong')).toBe(false);
    expect(observed.dummies).toBe(3);
  });

  it('take at most their share of the hashing threads; argon2id verifications do not wait for them', async () => {
    const hasher = new Argon2PasswordHasher({ memoryKiB: 1024, timeCost: 1, legacyConcurrency: 1 });
    const argon = await hasher.hash(PASSWORD);
    await hasher.warmUp();
    const slow = django(300_000);
    const finished: string[] = [];
    // As many slow legacy verifications as the thread pool has threads (4 by default): ungated,
    // they would take every thread and the argon2id verification would queue behind them.
    const legacy = Array.from({ length: 4 }, (_, i) =>
      hasher.verify(slow, PASSWORD).then((ok) => finished.push(`legacy${i}:${ok}`)),
    );
    const modern = hasher.verify(argon, PASSWORD).then((ok) => finished.push(`argon2:${ok}`));
    await Promise.all([...legacy, modern]);
    expect(finished[0]).toBe('argon2:true');
    expect(finished.slice(1)).toEqual(['legacy0:true', 'legacy1:true', 'legacy2:true', 'legacy3:true']);
  });
});

describe('ConcurrencyGate', () => {
  it('runs at most its limit at once, in arrival order', async () => {
    const gate = new ConcurrencyGate(2);
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const runs = Array.from({ length: 4 }, (_, i) =>
      gate.run(() => {
        started.push(i);
        return new Promise<void>((resolve) => {
          finish[i] = resolve;
        });
      }),
    );
    // Every step of the gate is a promise: once the queued callbacks have run, it has moved.
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    await settled();
    expect(started).toEqual([0, 1]);
    expect(gate.active).toBe(2);
    finish[1]!();
    await settled();
    expect(started).toEqual([0, 1, 2]);
    expect(gate.active).toBe(2);
    finish[0]!();
    await settled();
    expect(started).toEqual([0, 1, 2, 3]);
    finish[2]!();
    finish[3]!();
    await Promise.all(runs);
    expect(gate.active).toBe(0);
  });
});
