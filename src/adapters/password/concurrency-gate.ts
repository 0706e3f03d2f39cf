/**
 * At most `limit` tasks run at once; the others wait their turn, first come first served. Used to
 * keep verifications of imported legacy hashes (pbkdf2 on the libuv thread pool, bcrypt on the
 * event loop) from taking every hashing thread: argon2id logins always find one free.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The place passes straight to the next in line; only when nobody waits is it freed.
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Tasks running now (for tests and metrics). */
  get active(): number {
    return this.running;
  }
}
