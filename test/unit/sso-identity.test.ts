import { describe, expect, it } from 'vitest';
import { checkSsoIdentity } from '../../src/domain/sso/sso-identity.js';
import {
  interpretationRefusal,
  SsoInterpretationError,
} from '../../src/domain/sso/sso-interpretation-error.js';

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('checkSsoIdentity', () => {
  it('accepts one username and one group, trimming both', () => {
    expect(checkSsoIdentity({ username: ' gina ', groupIds: [' g1 '] })).toEqual({
      username: 'gina',
      groupId: 'g1',
    });
  });

  it('treats the same group twice as one group', () => {
    expect(checkSsoIdentity({ username: 'gina', groupIds: ['g1', 'g1'] })).toEqual({
      username: 'gina',
      groupId: 'g1',
    });
  });

  it.each([
    ['missing', { groupIds: ['g1'] }],
    ['empty', { username: '   ', groupIds: ['g1'] }],
    ['not a string', { username: 42, groupIds: ['g1'] }],
    ['too long', { username: 'x'.repeat(201), groupIds: ['g1'] }],
    ['with a control character', { username: 'gi\nna', groupIds: ['g1'] }],
    // Issue 14, finding 3: only ASCII spaces are trimmed; other white space and format characters refuse.
    ['wrapped in NBSP and U+3000', { username: '\u00a0carol\u3000', groupIds: ['g1'] }],
    ['led by a byte-order mark', { username: '\ufeffcarol', groupIds: ['g1'] }],
    ['ended by a line separator', { username: 'carol\u2028', groupIds: ['g1'] }],
    ['holding a zero-width space', { username: 'car\u200bol', groupIds: ['g1'] }],
    ['holding a right-to-left override', { username: '\u202elorac', groupIds: ['g1'] }],
    ['holding a space inside', { username: 'car ol', groupIds: ['g1'] }],
  ])('refuses a username that is %s with SSO_INVALID_USERNAME', (_label, identity) => {
    expect(codeOf(() => checkSsoIdentity(identity))).toBe('SSO_INVALID_USERNAME');
  });

  it('refuses two groups with SSO_MULTI_GROUPS', () => {
    expect(codeOf(() => checkSsoIdentity({ username: 'gina', groupIds: ['g1', 'g2'] }))).toBe(
      'SSO_MULTI_GROUPS',
    );
  });

  it('refuses no group with SSO_INVALID_GROUPID_AND_USERNAME', () => {
    expect(codeOf(() => checkSsoIdentity({ username: 'gina', groupIds: [] }))).toBe(
      'SSO_INVALID_GROUPID_AND_USERNAME',
    );
    expect(codeOf(() => checkSsoIdentity({ username: 'gina' }))).toBe('SSO_INVALID_GROUPID_AND_USERNAME');
  });

  it.each([
    ['a number, null, an array and an object beside a group', ['g1', 5, null, ['g2'], {}]],
    ['a number alone', [5]],
    ['a group wrapped in NBSP', ['\u00a0g1']],
    ['a group holding a zero-width joiner', ['g\u200d1']],
  ])(
    'refuses a group claim with %s (SSO_INVALID_GROUPID_AND_USERNAME), never reading it as g1',
    (_label, groupIds) => {
      expect(codeOf(() => checkSsoIdentity({ username: 'gina', groupIds }))).toBe(
        'SSO_INVALID_GROUPID_AND_USERNAME',
      );
    },
  );

  it('ignores blank group entries', () => {
    expect(checkSsoIdentity({ username: 'gina', groupIds: ['', '  ', 'g1'] })).toEqual({
      username: 'gina',
      groupId: 'g1',
    });
  });

  it('refuses a non-object result', () => {
    expect(codeOf(() => checkSsoIdentity(null))).toBe('SSO_INVALID_USERNAME');
  });
});

describe('an SsoInterpretationError from another copy of the class (gatehouse-testing beside the service)', () => {
  // What a second copy of the module makes: its own class, the same registered brand.
  class ForeignSsoInterpretationError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
      this.name = 'SsoInterpretationError';
      Object.defineProperty(this, Symbol.for('gatehouse.SsoInterpretationError'), { value: true });
    }
  }

  it('keeps its code, as the service answers it', () => {
    const refusal = interpretationRefusal(
      new ForeignSsoInterpretationError('SSO_MULTI_GROUPS', 'two groups'),
    );
    expect(refusal).toBeInstanceOf(SsoInterpretationError);
    expect(refusal?.code).toBe('SSO_MULTI_GROUPS');
    expect(refusal?.message).toBe('two groups');
  });

  it('is not fooled by a look-alike without the brand, or a branded error with a code that is no SSO code', () => {
    const lookAlike = Object.assign(new Error('x'), { name: 'SsoInterpretationError', code: 'SSO_REFUSED' });
    expect(interpretationRefusal(lookAlike)).toBeNull();
    expect(interpretationRefusal(new ForeignSsoInterpretationError('INTERNAL_ERROR', 'x'))).toBeNull();
    expect(interpretationRefusal('SSO_REFUSED')).toBeNull();
  });

  it('passes this copy’s own errors through unchanged', () => {
    const own = new SsoInterpretationError('SSO_INVALID_USERNAME', 'no username');
    expect(interpretationRefusal(own)).toBe(own);
  });
});
