import { createHash, KeyObject, randomBytes, sign, webcrypto } from 'node:crypto';
import { BasicConstraintsExtension, X509CertificateGenerator } from '@peculiar/x509';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { generateDetachedKeyPair } from './detached-key-pair.js';

/**
 * A WebAuthn authenticator and client in software, for tests: an ES256 key pair from node:crypto,
 * authenticator data and attestation objects built byte by byte as WebAuthn section 6.1 and 6.5
 * lay them out, and the browser's part (clientDataJSON, the JSON forms). No maintained npm package
 * does this without a browser (the one emulator found has no source repository named and brings
 * its own CBOR and domain-list packages), and building the bytes here keeps every field a test may
 * want to get wrong in reach.
 *
 * Each ceremony takes overrides for what a test wants wrong: another origin or relying party id,
 * another challenge, user verification missing, a counter, a tampered signature.
 */

export interface CeremonyOverrides {
  /** The page the browser says the ceremony ran on. */
  origin?: string;
  /** The relying party id whose hash goes into the authenticator data. */
  rpId?: string;
  /** The challenge the browser signs over instead of the options' one. */
  challenge?: string;
  /** clientDataJSON.type (`webauthn.create` / `webauthn.get`). */
  type?: string;
  userPresent?: boolean;
  userVerified?: boolean;
}

export type AttestationKind = 'none' | 'packed-self' | 'packed-x5c' | 'tpm';

/** An authenticator maker's attestation key and its certificate (DER). */
export interface AttestationCertificate {
  der: Uint8Array;
  privateKey: KeyObject;
}

/**
 * A self-signed certificate as a `packed` full attestation needs it (WebAuthn, "Packed Attestation
 * Statement Certificate Requirements": version 3, OU "Authenticator Attestation", not a CA). A
 * library that is given no trust anchors accepts it, which is why the service refuses every
 * certificate-bearing attestation itself.
 */
export async function attestationCertificate(): Promise<AttestationCertificate> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  // Not `subtle.generateKey`: a freshly generated key can deadlock Node 20 (detached-key-pair.ts).
  const pair = generateDetachedKeyPair({ type: 'ec', namedCurve: 'P-256' });
  const imported = (type: 'pkcs8' | 'spki', key: KeyObject, usage: 'sign' | 'verify') =>
    webcrypto.subtle.importKey(type, key.export({ type, format: 'der' }), algorithm, true, [usage]);
  const keys = {
    privateKey: await imported('pkcs8', pair.privateKey, 'sign'),
    publicKey: await imported('spki', pair.publicKey, 'verify'),
  };
  const now = Date.now();
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'C=US, O=Test Maker, OU=Authenticator Attestation, CN=Test Key',
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 3_600_000),
    signingAlgorithm: algorithm,
    keys,
    extensions: [new BasicConstraintsExtension(false, undefined, true)],
  });
  return { der: new Uint8Array(certificate.rawData), privateKey: KeyObject.from(keys.privateKey) };
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;
const COSE_ES256 = -7;

export class SoftwareAuthenticator {
  readonly credentialId: string;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private counter = 0;
  private userHandle: string | undefined;

  /**
   * `counting: false` is an authenticator that keeps no signature counter (it always presents 0,
   * as most synced passkeys do).
   */
  constructor(private readonly defaults: { rpId: string; origin: string; counting?: boolean }) {
    this.credentialId = randomBytes(32).toString('base64url');
    const pair = generateDetachedKeyPair({ type: 'ec', namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** navigator.credentials.create() answered, as `RegistrationResponseJSON`. */
  createCredential(
    options: { challenge: string; user?: { id: string } },
    overrides: CeremonyOverrides & {
      attestation?: AttestationKind;
      certificate?: AttestationCertificate;
    } = {},
  ): RegistrationResponseJSON {
    this.userHandle = options.user?.id;
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, overrides);
    const authData = concat(
      this.authDataHead(overrides, FLAG_AT, 0),
      new Uint8Array(16), // AAGUID: zeros, as for `none` conveyance
      uint16(Buffer.from(this.credentialId, 'base64url').length),
      Buffer.from(this.credentialId, 'base64url'),
      this.coseKey(),
    );
    const attestation = overrides.attestation ?? 'none';
    const signed = () => sign('sha256', concat(authData, sha256(clientDataJSON)), this.privateKey);
    const statements: Record<AttestationKind, () => [string, Map<CborKey, Cbor>]> = {
      none: () => ['none', new Map()],
      'packed-self': () => [
        'packed',
        new Map<CborKey, Cbor>([
          ['alg', COSE_ES256],
          ['sig', signed()],
        ]),
      ],
      'packed-x5c': () => {
        const certificate = overrides.certificate;
        if (!certificate) throw new Error('packed-x5c needs a certificate (attestationCertificate()).');
        const sig = sign('sha256', concat(authData, sha256(clientDataJSON)), certificate.privateKey);
        return [
          'packed',
          new Map<CborKey, Cbor>([
            ['alg', COSE_ES256],
            ['sig', sig],
            ['x5c', [certificate.der]],
          ]),
        ];
      },
      tpm: () => ['tpm', new Map<CborKey, Cbor>([['ver', '2.0']])],
    };
    const [fmt, attStmt] = statements[attestation]();
    const attestationObject = cbor(
      new Map<CborKey, Cbor>([
        ['fmt', fmt],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientDataJSON),
        attestationObject: base64url(attestationObject),
        transports: ['usb', 'internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get() answered, as `AuthenticationResponseJSON`. */
  getAssertion(
    options: { challenge: string },
    overrides: CeremonyOverrides & {
      /** The counter to present instead of the next one. */
      signCount?: number;
      tamperSignature?: boolean;
      /** Another user handle than the one registration gave; null for none. */
      userHandle?: string | null;
    } = {},
  ): AuthenticationResponseJSON {
    if (this.defaults.counting !== false) this.counter += 1;
    const signCount = overrides.signCount ?? (this.defaults.counting === false ? 0 : this.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides);
    const authData = this.authDataHead(overrides, 0, signCount);
    const signature = sign('sha256', concat(authData, sha256(clientDataJSON)), this.privateKey);
    // The last byte lies inside the DER integer `s`: the signature stays well-formed but wrong.
    if (overrides.tamperSignature) {
      const last = signature.length - 1;
      signature.writeUInt8(signature.readUInt8(last) ^ 0x01, last);
    }
    const userHandle = overrides.userHandle === undefined ? this.userHandle : overrides.userHandle;
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientDataJSON),
        authenticatorData: base64url(authData),
        signature: base64url(signature),
        ...(userHandle == null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
    };
  }

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides): Uint8Array {
    const data = {
      type: overrides.type ?? type,
      challenge: overrides.challenge ?? challenge,
      origin: overrides.origin ?? this.defaults.origin,
      crossOrigin: false,
    };
    return Buffer.from(JSON.stringify(data), 'utf8');
  }

  /** rpIdHash (32) | flags (1) | signCount (4, big-endian): WebAuthn section 6.1. */
  private authDataHead(overrides: CeremonyOverrides, extraFlags: number, signCount: number): Uint8Array {
    let flags = extraFlags;
    if (overrides.userPresent ?? true) flags |= FLAG_UP;
    if (overrides.userVerified ?? true) flags |= FLAG_UV;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount);
    return concat(
      sha256(Buffer.from(overrides.rpId ?? this.defaults.rpId, 'utf8')),
      Uint8Array.of(flags),
      count,
    );
  }

  /** The public key as a COSE_Key (RFC 9053: kty EC2, alg ES256, crv P-256, x, y). */
  private coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<CborKey, Cbor>([
        [1, 2],
        [3, COSE_ES256],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]),
    );
  }
}

type CborKey = number | string;
type Cbor = number | string | Uint8Array | Cbor[] | Map<CborKey, Cbor>;

/**
 * A minimal CBOR encoder (RFC 8949): integers, byte and text strings, arrays and maps, which is
 * all an attestation object and a COSE key hold. Definite lengths only, as CTAP2 requires.
 */
export function cbor(value: Cbor): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('Only integers are encoded.');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  if (Array.isArray(value)) return concat(head(4, value.length), ...value.map(cbor));
  const entries = [...value].flatMap(([key, item]) => [cbor(key), cbor(item)]);
  return concat(head(5, value.size), ...entries);
}

function head(major: number, length: number): Uint8Array {
  const type = major << 5;
  if (length < 24) return Uint8Array.of(type | length);
  if (length < 0x100) return Uint8Array.of(type | 24, length);
  if (length < 0x10000) return Uint8Array.of(type | 25, length >> 8, length & 0xff);
  const bytes = Buffer.alloc(5);
  bytes[0] = type | 26;
  bytes.writeUInt32BE(length, 1);
  return bytes;
}

function uint16(value: number): Uint8Array {
  return Uint8Array.of(value >> 8, value & 0xff);
}

function sha256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
