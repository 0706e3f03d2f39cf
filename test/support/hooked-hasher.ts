import type { PasswordHasher } from '../../src/domain/password/password-hasher.port.js';

/**
 * The service's password hasher with hooks, to line races up by what the service is doing rather
 * than by time: `onHashed` runs once when a new hash is ready (before it is stored),
 * `afterVerified` once after a verification succeeded, and `untilBegun(n)` resolves once n
 * verifications in all have begun.
 */
export class HookedHasher implements PasswordHasher {
  onHashed: (() => Promise<void>) | null = null;
  afterVerified: (() => Promise<void>) | null = null;
  began = 0;
  readonly #waiting: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly inner: PasswordHasher) {}

  untilBegun(count: number): Promise<void> {
    if (this.began >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }

  async hash(password: string) {
    const hash = await this.inner.hash(password);
    const hook = this.onHashed;
    this.onHashed = null;
    await hook?.();
    return hash;
  }

  async verify(stored: string, password: string) {
    this.began += 1;
    for (const waiter of this.#waiting.filter(({ count }) => this.began >= count)) {
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    const verified = await this.inner.verify(stored, password);
    const hook = this.afterVerified;
    this.afterVerified = null;
    if (verified) await hook?.();
    return verified;
  }

  needsRehash(stored: string) {
    return this.inner.needsRehash(stored);
  }

  isSupportedHash(stored: string) {
    return this.inner.isSupportedHash(stored);
  }

  verifyDummy(password: string) {
    return this.inner.verifyDummy(password);
  }
}
