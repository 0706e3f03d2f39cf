import type { LoginMethod, SessionRecord, StoredSession } from '../../domain/session/session.js';
import type { SessionAuth, SessionStage } from '../../domain/session/session-auth.js';
import { ENVIRONMENT_PROVIDER_ID } from '../../domain/sso/provider-registration.js';

/**
 * How a session is written in Redis: the record (one JSON field of short names, times in ms) and
 * the user's index member. Its own file: the store's operations read better without the format.
 */

/** What the take script answers for a session it deleted: record, last-seen ms, provider tokens. */
export type TakenSession = [raw: string, lastSeen: string, tokens: string | null];

/** The session record as stored (field `r`): short names, times in ms. */
interface StoredRecord {
  h: string;
  u: string;
  m: LoginMethod;
  c: number;
  e: number;
  a: string | null;
  g: string | null;
  /** The provider id; absent on sessions written before providers were registered (`default`). */
  sp?: string | null;
  si: string | null;
  ss: string | null;
  sd: string | null;
  /**
   * The session's `auth`: stage, methods (`amr`), auth time in ms. All three absent on a record
   * written before second factors: it reads as no `auth` (`sessionAuthOf` decides then).
   */
  as?: SessionStage;
  am?: string[];
  at?: number;
}

export function recordOf(session: StoredSession): StoredRecord {
  return {
    h: session.handle,
    u: session.userId,
    m: session.method,
    c: session.createdAt.getTime(),
    e: session.expiresAt.getTime(),
    a: session.clientAddress,
    g: session.userAgent,
    sp: session.sso?.provider ?? null,
    si: session.sso?.issuer ?? null,
    ss: session.sso?.subject ?? null,
    sd: session.sso?.sid ?? null,
    ...(session.auth
      ? { as: session.auth.stage, am: [...session.auth.amr], at: session.auth.authTime.getTime() }
      : {}),
  };
}

/** The record's `auth`, when it has all three fields; otherwise none (a pre-upgrade record). */
function authOf(r: StoredRecord): { auth?: SessionAuth } {
  if (r.as === undefined || r.am === undefined || r.at === undefined) return {};
  return { auth: { stage: r.as, amr: r.am, authTime: new Date(r.at) } };
}

export function sessionOf(tokenHash: string, raw: string, lastSeenMs: string): SessionRecord {
  const r = JSON.parse(raw) as StoredRecord;
  return {
    tokenHash,
    handle: r.h,
    userId: r.u,
    method: r.m,
    createdAt: new Date(r.c),
    lastSeenAt: new Date(Number(lastSeenMs)),
    expiresAt: new Date(r.e),
    clientAddress: r.a,
    userAgent: r.g,
    sso:
      r.si && r.ss
        ? { provider: r.sp ?? ENVIRONMENT_PROVIDER_ID, issuer: r.si, subject: r.ss, sid: r.sd }
        : null,
    ...authOf(r),
  };
}

/** A user's index member: creation time first (zero-padded), so equal last-seen scores sort oldest first. */
export function indexMember(session: Pick<SessionRecord, 'createdAt' | 'tokenHash'>): string {
  return `${String(session.createdAt.getTime()).padStart(15, '0')}:${session.tokenHash}`;
}

export function tokenHashOfMember(member: string): string {
  return member.slice(member.indexOf(':') + 1);
}
