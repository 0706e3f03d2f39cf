/**
 * The playground's password user. Second factors, passkeys and the step-up of the portal's Billing
 * page are for password users (an SSO session gets MFA_NOT_APPLICABLE: its provider does its second
 * factor), so the playground seeds one with a known password, in Acme's tenant. The browser test
 * seeds more of them, one per scenario, so that one scenario's factors do not change another's login.
 */
import type { ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { EMPTY_ATTRIBUTES, type UserAttributes } from '../../src/domain/user/user.js';

export interface DemoPasswordUser {
  username: string;
  password: string;
  tenantId: string;
  groupId: string;
  attributes: Partial<UserAttributes>;
}

/** Printed by `npm run dev:sso` and shown as a hint on the portal: a development password, nothing more. */
export const DANA: DemoPasswordUser = {
  username: 'dana',
  password: 'dana playground password',
  tenantId: 't-acme',
  groupId: 'g-acme',
  attributes: { firstName: 'Dana', lastName: 'Acme', emailAddress: 'dana@acme.test', language: 'en' },
};

/**
 * Creates the user with her password, not marked to change (an administrator's `gatehouse user add`
 * would mark it, and the portal would then meet PASSWORD_EXPIRED first). A user already there (a kept
 * data directory) is left as it is, factors included.
 */
export async function seedPasswordUser(gatehouse: Gatehouse, user: DemoPasswordUser): Promise<void> {
  const passwordHash = await gatehouse.container.get(TOKENS.PasswordHasher).hash(user.password);
  await gatehouse.store.users
    .create(
      {
        ...EMPTY_ATTRIBUTES,
        ...user.attributes,
        userId: `u-${user.username}`,
        username: user.username,
        userLevel: 8,
        tenantId: user.tenantId,
        groupId: user.groupId,
        backendName: null,
        passwordHash,
        mustChangePassword: false,
      },
      new Date(),
    )
    .catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'CONFLICT') throw error;
    });
}
