/**
 * The users whose identity the session check, the gateways, the product guards and the client
 * pass on, seeded alike wherever those are tested.
 */
import type { SeedUser } from './test-server.js';

/** The identity users' password. */
export const PASSWORD = 'correct horse battery staple';

/** Every identity field: a tenant and a group. */
export const ANN = {
  username: 'ann',
  password: PASSWORD,
  tenantId: 't1',
  groupId: 'g1',
  userId: 'u-ann',
} as const satisfies SeedUser;

/** A name beyond ASCII (percent-encoded in a header), and neither tenant nor group. */
export const ZOE = { username: 'zoë', password: PASSWORD, userId: 'u-zoe' } as const satisfies SeedUser;

/** Must change the password first: a session of hers is refused with PASSWORD_EXPIRED. */
export const FRESH = {
  username: 'fresh',
  password: PASSWORD,
  mustChangePassword: true,
} as const satisfies SeedUser;

/** ann as the guards and the client hand her to the application (level 0, the seed's default). */
export const ANN_IDENTITY = { userId: 'u-ann', username: 'ann', userLevel: 0, tenantId: 't1', groupId: 'g1' };
