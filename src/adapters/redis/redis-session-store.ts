import { createHash } from 'node:crypto';
import {
  EXPIRED_SESSION_GRACE_MS,
  type ProviderTokens,
  type SessionRecord,
  type SsoOrigin,
  type StoredSession,
} from '../../domain/session/session.js';
import type { SessionStore, SessionStoreCapabilities } from '../../domain/session/session-store.port.js';
import type { RedisClient } from './redis-connection.js';
import { redisCall } from './redis-errors.js';
import { execOnOneNode } from './redis-pipelines.js';
import { connectedReplicasIn } from './redis-replication.js';
import { type ScriptedPipeline, type ScriptedRedis, scriptedPipeline, withScripts } from './redis-scripts.js';
import {
  indexMember,
  recordOf,
  sessionOf,
  type TakenSession,
  tokenHashOfMember,
} from './redis-session-record.js';

export interface RedisSessionSettings {
  /** Prefix of every key (REDIS_KEY_PREFIX), so several deployments can share one Redis. */
  keyPrefix: string;
  /**
   * Replicas that must hold a session's creation or deletion before it is answered (Redis `WAIT`
   * on the session's node): 1 on a cluster, so an answered revocation survives the loss of its
   * master; 0 on one server (nothing to wait for).
   */
  replicaAcks?: { replicas: number; timeoutMs: number };
}

/**
 * Sessions in Redis (one server or a cluster), for SESSION_STORE=redis. Keys, each in one hash
 * slot, so no command or script ever spans two (no CROSSSLOT on a cluster):
 *
 * - `<prefix>s:<token hash>`: the session, a hash of its record (`r`, JSON), its last-seen time
 *   (`l`) and the provider tokens (`t`, read only when the session ends). Its time to live is the
 *   session's earlier time-out plus a grace, moved with last-seen.
 * - `<prefix>u:{<user id>}`: the user's sessions, a sorted set scored by last-seen (eviction of the
 *   least recently used beyond SESSIONS_PER_USER_MAX, listing, ending all of a user's sessions).
 * - `<prefix>o:{<issuer hash>}:sid:<sid>` and `...:sub:<subject>`: back-channel logout's way in.
 *
 * Sessions spread over the cluster's slots by token hash (no single hash tag for all keys). The
 * indexes are written before the session and cleaned after it, so an index may name a session
 * that is gone (read as absent, removed when met), never miss one that exists.
 */
export class RedisSessionStore implements SessionStore {
  /**
   * None: Redis forgets each key at its time to live (no purge), and "end all" or paging would
   * need a SCAN of every key on every master; the application's fallbacks serve them instead.
   */
  readonly capabilities: SessionStoreCapabilities = {};
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;

  constructor(
    client: RedisClient,
    private readonly settings: RedisSessionSettings,
  ) {
    this.redis = withScripts(client);
    this.prefix = settings.keyPrefix;
  }

  private sessionKey(tokenHash: string): string {
    return `${this.prefix}s:${tokenHash}`;
  }

  private userKey(userId: string): string {
    return `${this.prefix}u:{${userId}}`;
  }

  /** The issuer's SSO indexes share its hash slot (the hash tag): one node holds them all. */
  private ssoIndexBase(issuer: string): string {
    return `${this.prefix}o:{${createHash('sha256').update(issuer).digest('hex').slice(0, 32)}}`;
  }

  private subjectKey(issuer: string, subject: string): string {
    return `${this.ssoIndexBase(issuer)}:sub:${subject}`;
  }

  private sidKey(issuer: string, sid: string): string {
    return `${this.ssoIndexBase(issuer)}:sid:${sid}`;
  }

  private ssoKeys(session: { issuer: string; subject: string; sid: string | null }): string[] {
    return [
      this.subjectKey(session.issuer, session.subject),
      ...(session.sid !== null ? [this.sidKey(session.issuer, session.sid)] : []),
    ];
  }

  create(session: StoredSession, keepUntil: Date): Promise<void> {
    return redisCall(async () => {
      const lastSeen = session.lastSeenAt.getTime();
      // Relative to the session's own times (not this host's clock), as a time to live.
      const ttl = Math.max(keepUntil.getTime() - lastSeen, 1);
      const indexTtl =
        Math.max(session.expiresAt.getTime() - session.createdAt.getTime(), 0) + EXPIRED_SESSION_GRACE_MS;
      // Indexes first: a session that exists is always in them. Each slot's writes go as one
      // pipeline, followed on a cluster by WAIT on that slot's node, so a failover loses neither the
      // session nor the index entries that let a revocation find it.
      const acks = this.settings.replicaAcks;
      const durable = (build: () => ScriptedPipeline) => () => {
        const pipeline = build();
        return acks && acks.replicas > 0 ? pipeline.wait(acks.replicas, acks.timeoutMs) : pipeline;
      };
      const userKey = this.userKey(session.userId);
      await execOnOneNode(
        this.redis,
        durable(() =>
          (
            scriptedPipeline(this.redis).zadd(userKey, lastSeen, indexMember(session)) as ScriptedPipeline
          ).gatehouseIndexKeep(userKey, indexTtl),
        ),
      );
      if (session.sso) {
        for (const key of this.ssoKeys(session.sso)) {
          await execOnOneNode(
            this.redis,
            durable(() =>
              (
                scriptedPipeline(this.redis).sadd(key, session.tokenHash) as ScriptedPipeline
              ).gatehouseIndexKeep(key, indexTtl),
            ),
          );
        }
      }
      const tokens: ProviderTokens | null = session.sso
        ? {
            idToken: session.sso.idToken,
            accessTokenSealed: session.sso.accessTokenSealed,
            refreshTokenSealed: session.sso.refreshTokenSealed,
          }
        : null;
      // A login whose replica did not confirm in time is still answered: at worst a failover
      // within the replication lag loses it, and its user logs in again (docs/operations.md).
      await execOnOneNode(
        this.redis,
        durable(() =>
          scriptedPipeline(this.redis).gatehouseSessionCreate(
            this.sessionKey(session.tokenHash),
            JSON.stringify(recordOf(session)),
            lastSeen,
            tokens ? JSON.stringify(tokens) : '',
            ttl,
          ),
        ),
      );
    });
  }

  findByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    return redisCall(async () => {
      const [raw, lastSeen] = await this.redis.hmget(this.sessionKey(tokenHash), 'r', 'l');
      return raw && lastSeen ? sessionOf(tokenHash, raw, lastSeen) : null;
    });
  }

  touch(tokenHash: string, now: Date, keepUntil: Date): Promise<void> {
    return redisCall(async () => {
      const moved = (await this.redis.gatehouseSessionTouch(
        this.sessionKey(tokenHash),
        now.getTime(),
        Math.max(keepUntil.getTime() - now.getTime(), 1),
      )) as string | null;
      if (!moved) return;
      const session = sessionOf(tokenHash, moved, String(now.getTime()));
      // XX: never re-adds a session ended meanwhile; GT: never moves it back.
      await this.redis.zadd(this.userKey(session.userId), 'XX', 'GT', now.getTime(), indexMember(session));
    });
  }

  deleteByTokenHash(tokenHash: string): Promise<StoredSession | null> {
    return redisCall(() => this.take(tokenHash));
  }

  /** Deletes the session and its index entries; returns it with its tokens, or null when absent. */
  private async take(tokenHash: string): Promise<StoredSession | null> {
    const taken = await this.takeDurably(tokenHash);
    if (!taken) return null;
    const [raw, lastSeen, tokens] = taken;
    const session = sessionOf(tokenHash, raw, lastSeen);
    await this.redis.zrem(this.userKey(session.userId), indexMember(session));
    if (!session.sso) return { ...session, sso: null };
    for (const key of this.ssoKeys(session.sso)) await this.redis.srem(key, tokenHash);
    // The creation stores an SSO session's provider tokens with it, all three fields (null kept).
    return { ...session, sso: { ...session.sso, ...(JSON.parse(tokens as string) as ProviderTokens) } };
  }

  /**
   * Deletes the session key and, on a cluster, waits until a replica holds the deletion: a
   * revocation answered is never undone by a master failover. When the node has replicas and none
   * confirms in time, the revocation fails (503): the client retries, and the deletion is
   * idempotent. A node without any replica (after a failover, until one is added) has nothing to
   * fail over to, so there is nothing to wait for.
   */
  private async takeDurably(tokenHash: string): Promise<TakenSession | null> {
    const acks = this.settings.replicaAcks;
    const key = this.sessionKey(tokenHash);
    if (!acks || acks.replicas === 0) {
      return (await this.redis.gatehouseSessionTake(key)) as TakenSession | null;
    }
    // One pipeline: WAIT and INFO go to the node that deleted the key.
    const results = await execOnOneNode(this.redis, () =>
      scriptedPipeline(this.redis)
        .gatehouseSessionTake(key)
        .wait(acks.replicas, acks.timeoutMs)
        .info('replication'),
    );
    const taken = results![0]![1] as TakenSession | null;
    const acknowledged = results![1]![1] as number;
    const needed = Math.min(acks.replicas, connectedReplicasIn(String(results![2]![1])));
    if (taken && acknowledged < needed) {
      throw new Error(`session deletion confirmed by ${acknowledged} of ${needed} replicas in time`);
    }
    return taken;
  }

  deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number> {
    return redisCall(async () => {
      const members = await this.redis.zrange(this.userKey(userId), '0', '-1');
      const ended = await Promise.all(
        members
          .map(tokenHashOfMember)
          .filter((tokenHash) => tokenHash !== exceptTokenHash)
          .map((tokenHash) => this.take(tokenHash)),
      );
      // Members whose session had gone already (timed out) are dropped too.
      const kept = members.filter((member) => tokenHashOfMember(member) === exceptTokenHash);
      const stale = members.filter((member) => !kept.includes(member));
      if (stale.length > 0) await this.redis.zrem(this.userKey(userId), ...stale);
      return ended.filter((session) => session !== null).length;
    });
  }

  deleteBySso(origin: SsoOrigin, by: { sid?: string; subject?: string }): Promise<SessionRecord[]> {
    const { issuer } = origin;
    return redisCall(async () => {
      if (!by.sid && !by.subject) return [];
      // The narrower set: the sid's when given, else the subject's.
      const setKey = by.sid ? this.sidKey(issuer, by.sid) : this.subjectKey(issuer, by.subject as string);
      const ended: SessionRecord[] = [];
      for (const tokenHash of await this.redis.smembers(setKey)) {
        const session = await this.findByTokenHash(tokenHash);
        if (!session) {
          await this.redis.srem(setKey, tokenHash);
          continue;
        }
        const sso = session.sso;
        // The index is the issuer's: another provider of the same issuer shares it.
        if (!sso || sso.issuer !== issuer || sso.provider !== origin.provider) continue;
        if (by.sid && sso.sid !== by.sid) continue;
        if (by.subject && sso.subject !== by.subject) continue;
        const taken = await this.take(tokenHash);
        if (taken) ended.push(session);
      }
      return ended;
    });
  }

  listForUser(userId: string): Promise<SessionRecord[]> {
    return redisCall(() => this.allForUser(userId));
  }

  /** Every session the user's index names that still exists; the others leave the index. */
  private async allForUser(userId: string): Promise<SessionRecord[]> {
    const userKey = this.userKey(userId);
    const members = await this.redis.zrange(userKey, '0', '-1');
    const found = await Promise.all(
      members.map((member) =>
        this.findByTokenHash(tokenHashOfMember(member)).then((session) => ({ member, session })),
      ),
    );
    const stale = found.filter(({ session }) => session === null).map(({ member }) => member);
    if (stale.length > 0) await this.redis.zrem(userKey, ...stale);
    return found.flatMap(({ session }) => (session ? [session] : []));
  }

  /**
   * Claims the surplus in the user's index first, then deletes each session, and only then its
   * index entry: should a deletion fail (503), the session stays in the index, so ending all of the
   * user's sessions still finds it, and the next eviction finishes the claim.
   */
  evictBeyond(userId: string, keep: number): Promise<SessionRecord[]> {
    return redisCall(async () => {
      const userKey = this.userKey(userId);
      const claimed = (await this.redis.gatehouseUserEvict(userKey, keep)) as string[];
      const evicted: SessionRecord[] = [];
      for (const member of claimed) {
        const taken = await this.take(tokenHashOfMember(member));
        if (!taken) {
          // Gone already (timed out, or ended by another caller): only its entry is left.
          await this.redis.zrem(userKey, member);
          continue;
        }
        evicted.push({
          ...taken,
          sso: taken.sso
            ? {
                provider: taken.sso.provider,
                issuer: taken.sso.issuer,
                subject: taken.sso.subject,
                sid: taken.sso.sid,
              }
            : null,
        });
      }
      return evicted;
    });
  }

  deleteByHandle(userId: string, handle: string): Promise<boolean> {
    return redisCall(async () => {
      const session = (await this.allForUser(userId)).find((candidate) => candidate.handle === handle);
      return session ? (await this.take(session.tokenHash)) !== null : false;
    });
  }
}
