import {
  DomainError,
  type SessionAuth,
  type SessionRecord,
  type SessionStore,
  type SessionStoreCapabilities,
  type SsoOrigin,
  type StoredSession,
  withoutProviderTokens,
} from '../../src/testing/store-runtime.js';

/** What the team's database offers: values under keys, each forgotten at its expiry (null: never). */
export interface KeyValue {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, expiresAt: Date | null): Promise<void>;
  /** True when the key was there. */
  delete(key: string): Promise<boolean>;
}

type Stored = Omit<StoredSession, 'createdAt' | 'lastSeenAt' | 'expiresAt' | 'auth'> & {
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  keepUntil: string;
  /** How and when the session was made; absent on one made without it (kept absent). */
  auth?: Omit<SessionAuth, 'authTime'> & { authTime: string };
};

function revive(stored: Stored): StoredSession {
  const { keepUntil: _keepUntil, auth, ...session } = stored;
  return {
    ...session,
    createdAt: new Date(stored.createdAt),
    lastSeenAt: new Date(stored.lastSeenAt),
    expiresAt: new Date(stored.expiresAt),
    ...(auth ? { auth: { ...auth, authTime: new Date(auth.authTime) } } : {}),
  };
}

/**
 * A session store over any key/value database with expiry. It declares no capability: the
 * database forgets sessions by itself (no purge), and Gatehouse pages and "ends all" without help.
 * The per-user index is one key per user; its updates are serialised per user in this process,
 * which is exact for one instance only: a shared database needs its own conditional write
 * (a version check, a compare-and-set) in `update`.
 */
export class KeyValueSessionStore implements SessionStore {
  readonly capabilities: SessionStoreCapabilities = {};
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly kv: KeyValue) {}

  async create(session: StoredSession, keepUntil: Date): Promise<void> {
    // Indexes first: an index may name a session that is gone, never miss one that exists.
    await this.update(`u:${session.userId}`, (hashes) => [...hashes, session.tokenHash]);
    if (session.sso) {
      for (const key of this.ssoKeys(session.sso))
        await this.update(key, (hashes) => [...hashes, session.tokenHash]);
    }
    const { auth, ...rest } = session;
    const stored: Stored = {
      ...rest,
      createdAt: session.createdAt.toISOString(),
      lastSeenAt: session.lastSeenAt.toISOString(),
      expiresAt: session.expiresAt.toISOString(),
      keepUntil: keepUntil.toISOString(),
      ...(auth ? { auth: { ...auth, authTime: auth.authTime.toISOString() } } : {}),
    };
    await this.call(() => this.kv.set(`s:${session.tokenHash}`, JSON.stringify(stored), keepUntil));
  }

  async findByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const session = await this.read(tokenHash);
    return session ? withoutProviderTokens(session) : null;
  }

  async touch(tokenHash: string, now: Date, keepUntil: Date): Promise<void> {
    await this.serially(`s:${tokenHash}`, async () => {
      const raw = await this.call(() => this.kv.get(`s:${tokenHash}`));
      if (!raw) return;
      const stored = JSON.parse(raw) as Stored;
      if (now.getTime() <= Date.parse(stored.lastSeenAt)) return;
      const moved = { ...stored, lastSeenAt: now.toISOString(), keepUntil: keepUntil.toISOString() };
      await this.call(() => this.kv.set(`s:${tokenHash}`, JSON.stringify(moved), keepUntil));
    });
  }

  deleteByTokenHash(tokenHash: string): Promise<StoredSession | null> {
    // Serialised per key, so of two concurrent calls exactly one gets the session.
    return this.serially(`s:${tokenHash}`, async () => {
      const session = await this.read(tokenHash);
      if (!session || !(await this.call(() => this.kv.delete(`s:${tokenHash}`)))) return null;
      return session;
    });
  }

  async listForUser(userId: string): Promise<SessionRecord[]> {
    const key = `u:${userId}`;
    const sessions = await Promise.all((await this.index(key)).map((hash) => this.read(hash)));
    const found = sessions.flatMap((session) => (session ? [withoutProviderTokens(session)] : []));
    // Entries whose session is gone (ended, or forgotten at its keep-until) leave the index here.
    if (found.length < sessions.length) {
      const present = new Set(found.map((session) => session.tokenHash));
      await this.update(key, (hashes) => hashes.filter((hash) => present.has(hash)));
    }
    return found;
  }

  async deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number> {
    let ended = 0;
    for (const session of await this.listForUser(userId)) {
      if (session.tokenHash !== exceptTokenHash && (await this.deleteByTokenHash(session.tokenHash)))
        ended += 1;
    }
    return ended;
  }

  async deleteByHandle(userId: string, handle: string): Promise<boolean> {
    const session = (await this.listForUser(userId)).find((candidate) => candidate.handle === handle);
    return session ? (await this.deleteByTokenHash(session.tokenHash)) !== null : false;
  }

  async deleteBySso(origin: SsoOrigin, by: { sid?: string; subject?: string }): Promise<SessionRecord[]> {
    if (!by.sid && !by.subject) return [];
    const { issuer } = origin;
    const key = by.sid ? `o:${issuer}:sid:${by.sid}` : `o:${issuer}:sub:${by.subject}`;
    const ended: SessionRecord[] = [];
    for (const hash of await this.index(key)) {
      const sso = (await this.read(hash))?.sso;
      // The index is the issuer's; two customers' providers may share an issuer.
      if (!sso || sso.issuer !== issuer || sso.provider !== origin.provider) continue;
      if ((by.sid && sso.sid !== by.sid) || (by.subject && sso.subject !== by.subject)) continue;
      const taken = await this.deleteByTokenHash(hash);
      if (taken) ended.push(withoutProviderTokens(taken));
    }
    return ended;
  }

  evictBeyond(userId: string, keep: number): Promise<SessionRecord[]> {
    // One user's evictions run one at a time: each surplus session is ended exactly once.
    return this.serially(`evict:${userId}`, async () => {
      const byUse = (await this.listForUser(userId)).sort(
        (a, b) =>
          b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || b.createdAt.getTime() - a.createdAt.getTime(),
      );
      const evicted: SessionRecord[] = [];
      for (const session of byUse.slice(keep)) {
        if (await this.deleteByTokenHash(session.tokenHash)) evicted.push(session);
      }
      return evicted;
    });
  }

  private ssoKeys(sso: { issuer: string; subject: string; sid: string | null }): string[] {
    const keys = [`o:${sso.issuer}:sub:${sso.subject}`];
    if (sso.sid !== null) keys.push(`o:${sso.issuer}:sid:${sso.sid}`);
    return keys;
  }

  private async read(tokenHash: string): Promise<StoredSession | null> {
    const raw = await this.call(() => this.kv.get(`s:${tokenHash}`));
    return raw ? revive(JSON.parse(raw) as Stored) : null;
  }

  private async index(key: string): Promise<string[]> {
    const raw = await this.call(() => this.kv.get(key));
    return raw ? (JSON.parse(raw) as string[]) : [];
  }

  /**
   * Changes an index, one change at a time per key. An index has no expiry of its own (a session
   * may outlive any one date), and is deleted once empty.
   */
  private update(key: string, change: (hashes: string[]) => string[]): Promise<void> {
    return this.serially(key, async () => {
      const hashes = change(await this.index(key));
      if (hashes.length === 0) await this.call(() => this.kv.delete(key));
      else await this.call(() => this.kv.set(key, JSON.stringify(hashes), null));
    });
  }

  private serially<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(key) ?? Promise.resolve()).then(work, work);
    this.queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  /** A database that cannot answer is SERVICE_UNAVAILABLE: 503 and Retry-After, never a 500 or a 401. */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (cause) {
      throw new DomainError('SERVICE_UNAVAILABLE', 'The session store is unavailable.', {
        cause,
        retryAfterS: 5,
      });
    }
  }
}
