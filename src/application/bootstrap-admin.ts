import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import { hashPassword } from '../domain/password/password-text.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import { EMPTY_ATTRIBUTES, USER_LEVELS } from '../domain/user/user.js';

export const BOOTSTRAP_ADMIN_USERNAME = 'admin';

/**
 * On an empty database, creates the system administrator `admin` with a random password that
 * must be changed at first login (ASVS 6.4.1). Returns that password once, or null when users exist.
 * Two instances starting together: the second insert conflicts and is ignored.
 */
export async function bootstrapAdmin(deps: {
  store: Store;
  hasher: PasswordHasher;
  random: Random;
  clock: Clock;
}): Promise<string | null> {
  if ((await deps.store.users.count()) > 0) return null;
  const password = Buffer.from(deps.random.bytes(18)).toString('base64url');
  try {
    await deps.store.users.create(
      {
        ...EMPTY_ATTRIBUTES,
        userId: Buffer.from(deps.random.bytes(16)).toString('hex'),
        username: BOOTSTRAP_ADMIN_USERNAME,
        userLevel: USER_LEVELS.SYSTEM_ADMIN,
        tenantId: null,
        groupId: null,
        backendName: null,
        passwordHash: await hashPassword(deps.hasher, password),
        mustChangePassword: true,
      },
      deps.clock.now(),
    );
  } catch (error) {
    if ((error as { code?: string }).code === 'CONFLICT') return null;
    throw error;
  }
  return password;
}
