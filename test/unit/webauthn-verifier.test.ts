import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { nodeRandom } from '../../src/adapters/crypto/node-random.js';
import { SimpleWebAuthnVerifier } from '../../src/adapters/webauthn/simplewebauthn-verifier.js';
import type { WebAuthnCredential } from '../../src/domain/mfa/mfa-factor.js';
import { newWebAuthnChallenge } from '../../src/domain/mfa/webauthn-challenge.js';
import { webAuthnUserHandle } from '../../src/domain/mfa/webauthn-rules.js';
import { isDomainError } from '../../src/domain/shared/domain-error.js';
import { attestationCertificate, SoftwareAuthenticator } from '../support/software-authenticator.js';

const RP_ID = 'example.test';
const ORIGIN = 'https://app.example.test';
const OTHER_TRUSTED_ORIGIN = 'https://admin.example.test';
const USER = { userId: 'u-ann', username: 'ann' };

const verifier = new SimpleWebAuthnVerifier({
  id: RP_ID,
  name: 'Gatehouse',
  origins: [ORIGIN, OTHER_TRUSTED_ORIGIN],
});

function challenge(): string {
  return newWebAuthnChallenge(nodeRandom, new Date(), { ceremony: 'registration', boundTo: 's1' }).value;
}

function authenticator(options: { counting?: boolean } = {}): SoftwareAuthenticator {
  return new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN, ...options });
}

/** Registers `device` for ann through the verifier and returns the credential as a store keeps it. */
async function registered(device: SoftwareAuthenticator): Promise<WebAuthnCredential> {
  const expectedChallenge = challenge();
  const options = await verifier.registrationOptions({
    user: USER,
    challenge: expectedChallenge,
    existing: [],
  });
  const user = options.user as { id: string };
  const verified = await verifier.verifyRegistration({
    response: device.createCredential({ challenge: expectedChallenge, user }),
    expectedChallenge,
  });
  return {
    credentialId: verified.credentialId,
    userId: USER.userId,
    name: 'Key',
    publicKey: verified.publicKey,
    signCount: verified.signCount,
    transports: verified.transports,
    createdAt: new Date(),
    lastUsedAt: null,
  };
}

/** Expects the promise to fail as contract 3b says: a coded domain error, the library's words kept out. */
async function expectMfaInvalid(attempt: Promise<unknown>): Promise<void> {
  const error = await attempt.then(
    () => {
      throw new Error('expected a refusal');
    },
    (refusal: unknown) => refusal,
  );
  expect(isDomainError(error)).toBe(true);
  expect(error).toMatchObject({ code: 'MFA_INVALID', message: 'The second factor is not valid.' });
  expect((error as Error).cause).toBeDefined();
}

describe('WebAuthn registration options', () => {
  it('asks for a resident key and user verification (preferred), no attestation, excludes own credentials', async () => {
    const expectedChallenge = challenge();
    const existing = await registered(authenticator());
    const options = await verifier.registrationOptions({
      user: USER,
      challenge: expectedChallenge,
      existing: [existing],
    });
    expect(options).toMatchObject({
      challenge: expectedChallenge,
      rp: { id: RP_ID, name: 'Gatehouse' },
      user: { id: webAuthnUserHandle(USER.userId), name: 'ann' },
      attestation: 'none',
      timeout: 300_000,
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      excludeCredentials: [
        { id: existing.credentialId, type: 'public-key', transports: ['usb', 'internal'] },
      ],
    });
    const algorithms = (options.pubKeyCredParams as { alg: number }[]).map(({ alg }) => alg);
    expect(algorithms).toEqual([-8, -7, -257]);
  });

  it('never puts the user id itself in the user handle', async () => {
    const options = await verifier.registrationOptions({
      user: { userId: 'ann@example.com', username: 'ann' },
      challenge: challenge(),
      existing: [],
    });
    const handle = Buffer.from((options.user as { id: string }).id, 'base64url');
    expect(handle).toHaveLength(32);
    expect(handle.toString('utf8')).not.toContain('ann@example.com');
  });
});

describe('WebAuthn registration', () => {
  it('accepts a good registration and gives the public parts of the credential', async () => {
    const device = authenticator();
    const expectedChallenge = challenge();
    const verified = await verifier.verifyRegistration({
      response: device.createCredential({ challenge: expectedChallenge }),
      expectedChallenge,
    });
    expect(verified).toMatchObject({
      credentialId: device.credentialId,
      signCount: 0,
      transports: ['usb', 'internal'],
      userVerified: true,
    });
    expect(verified.publicKey).toBeInstanceOf(Uint8Array);
    expect(verified.publicKey.length).toBeGreaterThan(64);
  });

  it('accepts a page of any trusted origin', async () => {
    const expectedChallenge = challenge();
    const response = authenticator().createCredential(
      { challenge: expectedChallenge },
      { origin: OTHER_TRUSTED_ORIGIN },
    );
    await expect(verifier.verifyRegistration({ response, expectedChallenge })).resolves.toBeDefined();
  });

  it('accepts a security key without user verification (asked as preferred), but records it', async () => {
    const expectedChallenge = challenge();
    const response = authenticator().createCredential(
      { challenge: expectedChallenge },
      { userVerified: false },
    );
    await expect(verifier.verifyRegistration({ response, expectedChallenge })).resolves.toMatchObject({
      userVerified: false,
    });
  });

  it('accepts packed self attestation (what a browser may pass on for `none`)', async () => {
    const expectedChallenge = challenge();
    const response = authenticator().createCredential(
      { challenge: expectedChallenge },
      { attestation: 'packed-self' },
    );
    await expect(verifier.verifyRegistration({ response, expectedChallenge })).resolves.toBeDefined();
  });

  it.each(['packed-x5c', 'tpm'] as const)(
    'refuses %s attestation: not what the options asked for',
    async (attestation) => {
      const expectedChallenge = challenge();
      // A well-made certificate the library alone would take (it has no trust anchors to check).
      const certificate = await attestationCertificate();
      const response = authenticator().createCredential(
        { challenge: expectedChallenge },
        { attestation, certificate },
      );
      await expectMfaInvalid(verifier.verifyRegistration({ response, expectedChallenge }));
    },
  );

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['a look-alike origin', { origin: 'https://app.example.test.evil.example' }],
    ['plain http', { origin: 'http://app.example.test' }],
    ['another relying party id', { rpId: 'evil.example' }],
    ['another challenge', { challenge: Buffer.alloc(32, 7).toString('base64url') }],
    ['a login answer', { type: 'webauthn.get' }],
    ['no user presence', { userPresent: false }],
  ])('refuses a registration made with %s', async (_case, overrides) => {
    const expectedChallenge = challenge();
    const response = authenticator().createCredential({ challenge: expectedChallenge }, overrides);
    await expectMfaInvalid(verifier.verifyRegistration({ response, expectedChallenge }));
  });
});

describe('WebAuthn authentication options', () => {
  it('offers a passkey login no credentials and requires user verification', async () => {
    const expectedChallenge = challenge();
    const options = await verifier.authenticationOptions({
      ceremony: 'passkey_login',
      challenge: expectedChallenge,
    });
    expect(options).toMatchObject({
      challenge: expectedChallenge,
      rpId: RP_ID,
      userVerification: 'required',
      timeout: 300_000,
    });
    expect(options.allowCredentials ?? []).toEqual([]);
  });

  it("allows a second factor the user's own credentials, user verification preferred", async () => {
    const credential = await registered(authenticator());
    const options = await verifier.authenticationOptions({
      ceremony: 'second_factor',
      challenge: challenge(),
      credentials: [credential],
    });
    expect(options).toMatchObject({
      userVerification: 'preferred',
      allowCredentials: [
        { id: credential.credentialId, type: 'public-key', transports: ['usb', 'internal'] },
      ],
    });
  });
});

describe('WebAuthn authentication', () => {
  it('accepts a good login and gives the counter to store', async () => {
    const device = authenticator();
    const credential = await registered(device);
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge });
    expect(verifier.credentialIdOf(response)).toBe(credential.credentialId);
    await expect(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: true,
      }),
    ).resolves.toEqual({ credentialId: credential.credentialId, newSignCount: 1, userVerified: true });
  });

  it('requires user verification when asked (a passkey login), not for a second factor', async () => {
    const device = authenticator();
    const credential = await registered(device);
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge }, { userVerified: false });
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: true,
      }),
    );
    await expect(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: false,
      }),
    ).resolves.toMatchObject({ userVerified: false });
  });

  it('refuses an assertion without user presence even when verification is not required', async () => {
    const device = authenticator();
    const credential = await registered(device);
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge }, { userPresent: false });
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: false,
      }),
    );
  });

  it.each([
    ['the same as stored', 5, 5],
    ['lower than stored', 5, 3],
    ['zero after a counting one', 5, 0],
  ])('refuses a counter %s (a cloned key or a replay)', async (_case, stored, presented) => {
    const device = authenticator();
    const credential = { ...(await registered(device)), signCount: stored };
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge }, { signCount: presented });
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: true,
      }),
    );
  });

  it('accepts a counter above the stored one, and an authenticator that keeps none (both zero)', async () => {
    const counting = authenticator();
    const stored = { ...(await registered(counting)), signCount: 5 };
    const first = challenge();
    await expect(
      verifier.verifyAuthentication({
        response: counting.getAssertion({ challenge: first }, { signCount: 6 }),
        expectedChallenge: first,
        credential: stored,
        requireUserVerification: true,
      }),
    ).resolves.toMatchObject({ newSignCount: 6 });

    const counterless = authenticator({ counting: false });
    const credential = await registered(counterless);
    for (let login = 0; login < 2; login += 1) {
      const expectedChallenge = challenge();
      await expect(
        verifier.verifyAuthentication({
          response: counterless.getAssertion({ challenge: expectedChallenge }),
          expectedChallenge,
          credential,
          requireUserVerification: true,
        }),
      ).resolves.toMatchObject({ newSignCount: 0 });
    }
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['another relying party id', { rpId: 'evil.example' }],
    ['another challenge', { challenge: Buffer.alloc(32, 7).toString('base64url') }],
    ['a registration answer', { type: 'webauthn.create' }],
    ['a tampered signature', { tamperSignature: true }],
    ["another user's handle", { userHandle: webAuthnUserHandle('u-bob') }],
  ])('refuses a login made with %s', async (_case, overrides) => {
    const device = authenticator();
    const credential = await registered(device);
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge }, overrides);
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential,
        requireUserVerification: true,
      }),
    );
  });

  it('refuses an assertion checked against another credential, even of the same user', async () => {
    const device = authenticator();
    await registered(device);
    const other = await registered(authenticator());
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge });
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response,
        expectedChallenge,
        credential: other,
        requireUserVerification: true,
      }),
    );
    // Same id as the stored one, signed by another key: the signature decides.
    const forged = { ...response, id: other.credentialId, rawId: other.credentialId };
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response: forged,
        expectedChallenge,
        credential: other,
        requireUserVerification: true,
      }),
    );
  });
});

describe('WebAuthn responses that are not well-formed', () => {
  const garbage = Buffer.from('not cbor at all').toString('base64url');
  const notJson = Buffer.from('{"type": "webauthn.').toString('base64url');

  async function goodRegistration() {
    const expectedChallenge = challenge();
    return {
      expectedChallenge,
      response: authenticator().createCredential({ challenge: expectedChallenge }),
    };
  }

  it.each<[string, (response: Record<string, unknown>) => unknown]>([
    ['null', () => null],
    ['a string', () => 'public-key'],
    ['an array', (response) => [response]],
    ['no response part', ({ response: _, ...rest }) => rest],
    ['another type', (response) => ({ ...response, type: 'password' })],
    ['rawId unlike id', (response) => ({ ...response, rawId: 'AAAA' })],
    ['id not base64url', (response) => ({ ...response, id: 'a+b/c=', rawId: 'a+b/c=' })],
    ['clientDataJSON not JSON', (response) => withPart(response, { clientDataJSON: notJson })],
    ['clientDataJSON a number', (response) => withPart(response, { clientDataJSON: 42 })],
    ['attestationObject not CBOR', (response) => withPart(response, { attestationObject: garbage })],
    ['attestationObject empty', (response) => withPart(response, { attestationObject: '' })],
    ['transports not a list', (response) => withPart(response, { transports: 'usb' })],
    ['a huge id', (response) => ({ ...response, id: 'A'.repeat(5000), rawId: 'A'.repeat(5000) })],
  ])('refuses a registration response with %s', async (_case, spoil) => {
    const { expectedChallenge, response } = await goodRegistration();
    const spoilt = spoil(response as unknown as Record<string, unknown>);
    await expectMfaInvalid(verifier.verifyRegistration({ response: spoilt, expectedChallenge }));
  });

  it.each<[string, (response: Record<string, unknown>) => unknown]>([
    ['null', () => null],
    ['{}', () => ({})],
    ['no signature', (response) => withPart(response, { signature: undefined })],
    ['a signature not base64url', (response) => withPart(response, { signature: '***' })],
    ['authenticatorData cut short', (response) => withPart(response, { authenticatorData: 'AAAA' })],
    ['clientDataJSON not JSON', (response) => withPart(response, { clientDataJSON: notJson })],
    ['a user handle that is an object', (response) => withPart(response, { userHandle: { id: 1 } })],
  ])('refuses an authentication response with %s', async (_case, spoil) => {
    const device = authenticator();
    const credential = await registered(device);
    const expectedChallenge = challenge();
    const response = device.getAssertion({ challenge: expectedChallenge });
    const spoilt = spoil(response as unknown as Record<string, unknown>);
    await expectMfaInvalid(
      verifier.verifyAuthentication({
        response: spoilt,
        expectedChallenge,
        credential,
        requireUserVerification: true,
      }),
    );
  });

  it('names no credential for a response that is not one', () => {
    expect(verifier.credentialIdOf(null)).toBeNull();
    expect(verifier.credentialIdOf({ id: 'abc' })).toBeNull();
    const response: AuthenticationResponseJSON = {
      id: 'abc',
      rawId: 'abc',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
      clientExtensionResults: {},
    };
    expect(verifier.credentialIdOf(response)).toBe('abc');
  });
});

function withPart(response: Record<string, unknown>, part: Record<string, unknown>): Record<string, unknown> {
  return { ...response, response: { ...(response.response as Record<string, unknown>), ...part } };
}
