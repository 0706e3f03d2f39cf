import { USER_LEVELS, type User } from '../user/user.js';

/** Spec 2.2: identifiers the client uses to build further API URLs. Absent keys are omitted. */
export interface Ids {
  tenant_id?: string;
  group_id?: string;
  user_id?: string;
}

/**
 * Contract section 5: end user → tenant, group, user; department and group admin → tenant, group;
 * tenant admin → tenant; system admin → none. A level's id that is not set is omitted, never null.
 */
export function idsFor(user: Pick<User, 'userLevel' | 'tenantId' | 'groupId' | 'userId'>): Ids {
  const ids: Ids = {};
  const level = user.userLevel;
  if (level <= USER_LEVELS.TENANT_ADMIN && user.tenantId) ids.tenant_id = user.tenantId;
  if (level <= USER_LEVELS.GROUP_ADMIN && user.groupId) ids.group_id = user.groupId;
  if (level === USER_LEVELS.END_USER) ids.user_id = user.userId;
  return ids;
}
