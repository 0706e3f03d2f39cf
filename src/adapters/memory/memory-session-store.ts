import {
  type SessionRecord,
  type SsoOrigin,
  type StoredSession,
  withoutProviderTokens,
} from '../../domain/session/session.js';
import type {
  EndAllSessions,
  SessionPurge,
  SessionReplace,
  SessionStore,
  SessionStoreCapabilities,
} from '../../domain/session/session-store.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

interface Entry {
  session: StoredSession;
  keepUntil: number;
}

function ssoKey(issuer: string, by: 'sid' | 'sub', value: string): string {
  return JSON.stringify([issuer, by, value]);
}

/**
 * Sessions in this process's memory (SESSION_STORE=memory): for one process with no Redis, and
 * for tests where storage is not the subject. Written against the public port only. Nothing
 * survives a restart, and two processes do not share it: a service behind a load balancer needs
 * a shared store. Single-threaded, so every operation is atomic and eviction exact per user.
 *
 * It owns expiry as the port asks: an entry past its `keepUntil` (by the injected clock) is
 * forgotten when met, and the purge it declares (cheap here) sweeps the rest.
 */
export class MemorySessionStore implements SessionStore, SessionPurge, EndAllSessions, SessionReplace {
  readonly capabilities: SessionStoreCapabilities = { purge: this, endAll: this, replace: this };
  private readonly byToken = new Map<string, Entry>();
  private readonly byUser = new Map<string, Set<string>>();
  private readonly bySso = new Map<string, Set<string>>();

  constructor(private readonly clock: Clock) {}

  async create(session: StoredSession, keepUntil: Date): Promise<void> {
    this.byToken.set(session.tokenHash, {
      session: structuredClone(session),
      keepUntil: keepUntil.getTime(),
    });
    this.index(this.byUser, session.userId, session.tokenHash);
    if (session.sso) {
      this.index(this.bySso, ssoKey(session.sso.issuer, 'sub', session.sso.subject), session.tokenHash);
      if (session.sso.sid !== null) {
        this.index(this.bySso, ssoKey(session.sso.issuer, 'sid', session.sso.sid), session.tokenHash);
      }
    }
  }

  async findByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const entry = this.live(tokenHash);
    return entry ? withoutProviderTokens(structuredClone(entry.session)) : null;
  }

  async touch(tokenHash: string, now: Date, keepUntil: Date): Promise<void> {
    const entry = this.live(tokenHash);
    if (!entry || now.getTime() <= entry.session.lastSeenAt.getTime()) return;
    entry.session.lastSeenAt = new Date(now);
    entry.keepUntil = Math.max(entry.keepUntil, keepUntil.getTime());
  }

  async deleteByTokenHash(tokenHash: string): Promise<StoredSession | null> {
    const entry = this.live(tokenHash);
    if (!entry) return null;
    this.forget(tokenHash);
    return structuredClone(entry.session);
  }

  async replaceSession(
    oldTokenHash: string,
    next: StoredSession,
    keepUntil: Date,
  ): Promise<StoredSession | null> {
    const entry = this.live(oldTokenHash);
    if (!entry || entry.session.userId !== next.userId) return null;
    this.forget(oldTokenHash);
    await this.create(next, keepUntil);
    return structuredClone(entry.session);
  }

  async listForUser(userId: string): Promise<SessionRecord[]> {
    return this.sessionsOf(userId).map((session) => withoutProviderTokens(structuredClone(session)));
  }

  async deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number> {
    let ended = 0;
    for (const session of this.sessionsOf(userId)) {
      if (session.tokenHash === exceptTokenHash) continue;
      this.forget(session.tokenHash);
      ended += 1;
    }
    return ended;
  }

  async deleteByHandle(userId: string, handle: string): Promise<boolean> {
    const session = this.sessionsOf(userId).find((candidate) => candidate.handle === handle);
    if (!session) return false;
    this.forget(session.tokenHash);
    return true;
  }

  async deleteBySso(origin: SsoOrigin, by: { sid?: string; subject?: string }): Promise<SessionRecord[]> {
    if (!by.sid && !by.subject) return [];
    const { issuer } = origin;
    const key = by.sid ? ssoKey(issuer, 'sid', by.sid) : ssoKey(issuer, 'sub', by.subject!);
    const ended: SessionRecord[] = [];
    for (const tokenHash of [...(this.bySso.get(key) ?? [])]) {
      const sso = this.live(tokenHash)?.session.sso;
      // The index is the issuer's: another provider of the same issuer shares it.
      if (!sso || sso.issuer !== issuer || sso.provider !== origin.provider) continue;
      if (by.sid && sso.sid !== by.sid) continue;
      if (by.subject && sso.subject !== by.subject) continue;
      const taken = await this.deleteByTokenHash(tokenHash);
      if (taken) ended.push(withoutProviderTokens(taken));
    }
    return ended;
  }

  async evictBeyond(userId: string, keep: number): Promise<SessionRecord[]> {
    const byUse = this.sessionsOf(userId).sort(
      (a, b) =>
        b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || b.createdAt.getTime() - a.createdAt.getTime(),
    );
    const evicted = byUse.slice(Math.max(keep, 0));
    for (const session of evicted) this.forget(session.tokenHash);
    return evicted.map((session) => withoutProviderTokens(structuredClone(session)));
  }

  async deleteAll(): Promise<number> {
    const ended = this.byToken.size;
    this.byToken.clear();
    this.byUser.clear();
    this.bySso.clear();
    return ended;
  }

  async purgeExpired(now: Date, idleTimeoutS: number, limit: number): Promise<number> {
    const idleCutoff = now.getTime() - idleTimeoutS * 1000;
    let purged = 0;
    for (const [tokenHash, { session }] of this.byToken) {
      if (purged >= limit) break;
      if (session.expiresAt.getTime() <= now.getTime() || session.lastSeenAt.getTime() <= idleCutoff) {
        this.forget(tokenHash);
        purged += 1;
      }
    }
    return purged;
  }

  /** Every session held, expired or not, as stored (for tests that look beneath the port). */
  held(): StoredSession[] {
    return [...this.byToken.values()].map(({ session }) => structuredClone(session));
  }

  /** The entry, unless it is past its keep-until (then it is forgotten here). */
  private live(tokenHash: string): Entry | null {
    const entry = this.byToken.get(tokenHash);
    if (!entry) return null;
    if (entry.keepUntil <= this.clock.now().getTime()) {
      this.forget(tokenHash);
      return null;
    }
    return entry;
  }

  private sessionsOf(userId: string): StoredSession[] {
    return [...(this.byUser.get(userId) ?? [])].flatMap((tokenHash) => {
      const entry = this.live(tokenHash);
      return entry ? [entry.session] : [];
    });
  }

  private index(indexes: Map<string, Set<string>>, key: string, tokenHash: string): void {
    const members = indexes.get(key) ?? new Set<string>();
    members.add(tokenHash);
    indexes.set(key, members);
  }

  private unindex(indexes: Map<string, Set<string>>, key: string, tokenHash: string): void {
    const members = indexes.get(key);
    members?.delete(tokenHash);
    if (members?.size === 0) indexes.delete(key);
  }

  private forget(tokenHash: string): void {
    const entry = this.byToken.get(tokenHash);
    if (!entry) return;
    this.byToken.delete(tokenHash);
    const { session } = entry;
    this.unindex(this.byUser, session.userId, tokenHash);
    if (session.sso) {
      this.unindex(this.bySso, ssoKey(session.sso.issuer, 'sub', session.sso.subject), tokenHash);
      if (session.sso.sid !== null) {
        this.unindex(this.bySso, ssoKey(session.sso.issuer, 'sid', session.sso.sid), tokenHash);
      }
    }
  }
}
