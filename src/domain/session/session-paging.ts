import type { SessionRecord } from './session.js';
import type { SessionPage } from './session-store.port.js';

/** Newest first by (created_at, handle): the order of every page of a user's sessions. */
export function newestFirst(
  a: Pick<SessionRecord, 'createdAt' | 'handle'>,
  b: Pick<SessionRecord, 'createdAt' | 'handle'>,
): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.handle < b.handle ? 1 : a.handle > b.handle ? -1 : 0;
}

/**
 * One page of a user's sessions, computed from all of them: what a store without the paging
 * capability gives (bounded by the per-user cap), the same answer a store's own paging gives.
 */
export function pageOfSessions(sessions: readonly SessionRecord[], page: SessionPage): SessionRecord[] {
  const { alive, after } = page;
  const idleCutoff = alive ? alive.at.getTime() - alive.idleTimeoutS * 1000 : 0;
  return sessions
    .filter(
      (session) =>
        !alive ||
        (session.expiresAt.getTime() > alive.at.getTime() && session.lastSeenAt.getTime() > idleCutoff),
    )
    .sort(newestFirst)
    .filter((session) => !after || newestFirst(session, after) > 0)
    .slice(0, page.limit);
}
