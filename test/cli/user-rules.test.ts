import { describe, expect, it } from 'vitest';
import { identifierViolation, idsNeededFor, newUserViolations } from '../../src/domain/user/user-rules.js';

const base = { username: 'ann', tenantId: 't1', groupId: 'g1' };

describe('user rules: the ids each level needs (contract 5), shared by user add and import', () => {
  it.each([
    [0, { tenant: true, group: true }],
    [4, { tenant: true, group: true }],
    [8, { tenant: true, group: true }],
    [12, { tenant: true, group: false }],
    [16, { tenant: false, group: false }],
  ] as const)('level %i needs %o', (level, needed) => {
    expect(idsNeededFor(level)).toEqual(needed);
  });

  it('accepts each level with exactly the ids it needs', () => {
    for (const level of [0, 4, 8]) expect(newUserViolations({ ...base, userLevel: level })).toEqual([]);
    expect(newUserViolations({ ...base, userLevel: 12, groupId: null })).toEqual([]);
    expect(newUserViolations({ username: 'root', userLevel: 16, tenantId: null, groupId: null })).toEqual([]);
  });

  it('names a missing id, an id the level has no use for, an unknown level or access type', () => {
    expect(newUserViolations({ ...base, userLevel: 0, groupId: null })).toEqual([
      { path: 'group_id', message: 'is required for an end user (level 0)' },
    ]);
    expect(newUserViolations({ ...base, userLevel: 12 })).toEqual([
      { path: 'group_id', message: 'must not be set for a tenant admin (level 12)' },
    ]);
    expect(newUserViolations({ ...base, userLevel: 16 }).map((error) => error.path)).toEqual([
      'tenant_id',
      'group_id',
    ]);
    expect(newUserViolations({ ...base, userLevel: 5 })[0]!.path).toBe('user_level');
    expect(newUserViolations({ ...base, userLevel: 0, accessType: 2 })[0]!.path).toBe('access_type');
  });

  it('refuses empty, over-long, control-character and padded identifiers', () => {
    expect(identifierViolation('username', '')).toMatchObject({ message: 'must not be empty' });
    expect(identifierViolation('username', 'x'.repeat(201))).toMatchObject({ path: 'username' });
    expect(identifierViolation('username', 'a\u001bb')).toMatchObject({
      message: 'must not contain control characters',
    });
    expect(identifierViolation('username', 'a\u0085b')).not.toBeNull();
    expect(identifierViolation('username', ' ann')).toMatchObject({
      message: 'must not start or end with white space',
    });
    expect(identifierViolation('username', 'Ann.Lee@example.com')).toBeNull();
  });
});
