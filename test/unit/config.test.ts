import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/boot/config/config.js';
import { ID_TOKEN_ALGORITHMS } from '../../src/domain/sso/provider-registration.js';

const OIDC = {
  OIDC_ISSUER: 'https://idp.example.com/realms/acme',
  OIDC_CLIENT_ID: 'gatehouse',
  OIDC_CLIENT_SECRET: 'client-secret',
  OIDC_REDIRECT_URIS: 'https://portal.example.com/callback',
};

function configError(environment: Record<string, string>): ConfigError {
  try {
    loadConfig(environment);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(environment)}`);
}

describe('loadConfig defaults (contract section 7)', () => {
  const config = loadConfig({});

  it('listens on 127.0.0.1:8080', () => {
    expect(config.http.port).toBe(8080);
    expect(config.http.host).toBe('127.0.0.1');
  });

  it('uses the embedded database in ./data when DATABASE_URL is unset', () => {
    expect(config.database).toEqual({ kind: 'pglite', dataDir: './data' });
  });

  it('hides backend info, times sessions out after 30 min idle and 12 h', () => {
    expect(config.provideBackendInfo).toBe(false);
    expect(config.session).toEqual({ idleTimeoutS: 1800, absoluteTimeoutS: 43_200, perUserMax: 100 });
    expect(config.metrics.onMainPort).toBe(false);
  });

  it('names the cookie sessionid, Secure, SameSite lax, no Domain', () => {
    expect(config.cookie).toEqual({ name: 'sessionid', secure: true, sameSite: 'lax', domain: undefined });
  });

  it('turns login expiration off and throttles after 5 failures in 900 s', () => {
    expect(config.password.maxAgeDays).toBe(0);
    expect(config.throttle).toEqual({ maxFailures: 5, windowS: 900 });
  });

  it('trusts no proxy: TRUST_PROXY false, true, or the number of proxies in front', () => {
    expect(config.http.trustedProxyHops).toBe(0);
    for (const [value, hops] of [
      ['false', 0],
      ['no', 0],
      ['0', 0],
      ['true', 1],
      ['yes', 1],
      ['1', 1],
      ['3', 3],
      ['10', 10],
    ] as const) {
      expect(loadConfig({ TRUST_PROXY: value }).http.trustedProxyHops).toBe(hops);
    }
  });

  it('trusts no other origin and has single sign-on off', () => {
    expect(config.trustedOrigins).toEqual([]);
    expect(config.oidc).toBeNull();
    expect(config.tokenEncryptionKey).toBeUndefined();
  });

  it('uses the built-in claims interpreter, its claims, and group admins only for SSO', () => {
    expect(config.sso).toEqual({
      interpreter: 'claims',
      usernameClaim: 'preferred_username',
      groupClaim: 'groups',
      userLevels: [8],
      interpreters: new Map(),
      providerTimeoutMs: 5000,
      allowInsecureHttp: false,
      endpointOrigins: [],
      registryPollMs: 5000,
    });
  });

  it('reads SSO_INTERPRETERS as name=module pairs and names every malformed pair', () => {
    expect(
      loadConfig({ SSO_INTERPRETERS: 'acme=@acme/gatehouse-sso, globex=./interpreters/globex.js' }).sso
        .interpreters,
    ).toEqual(
      new Map([
        ['acme', '@acme/gatehouse-sso'],
        ['globex', './interpreters/globex.js'],
      ]),
    );
    for (const [value, fault] of [
      ['acme', 'is not name=module'],
      ['=x', 'is not name=module'],
      ['Acme=x', 'is not name=module'],
      ['acme=', 'is not name=module'],
      ['claims=./mine.js', "built-in interpreter's name"],
      ['a=x,a=y', 'is given twice'],
    ] as const) {
      expect(() => loadConfig({ SSO_INTERPRETERS: value }), value).toThrow(
        new RegExp(`SSO_INTERPRETERS: .*${fault}`),
      );
    }
  });

  it('logs at info', () => {
    expect(config.logLevel).toBe('info');
  });

  it('gives the provider a 5 s time-out and refuses insecure http by default', () => {
    const withOidc = loadConfig(OIDC);
    expect(withOidc.oidc).toMatchObject({
      issuer: OIDC.OIDC_ISSUER,
      clientId: 'gatehouse',
      clientSecret: 'client-secret',
      redirectUris: ['https://portal.example.com/callback'],
      timeoutMs: 5000,
      idTokenAlg: 'RS256',
      allowInsecureHttp: false,
    });
  });

  it('expects the provider to sign with OIDC_ID_TOKEN_ALG, RS256 unless set', () => {
    for (const alg of ID_TOKEN_ALGORITHMS) {
      expect(loadConfig({ ...OIDC, OIDC_ID_TOKEN_ALG: alg }).oidc?.idTokenAlg).toBe(alg);
    }
  });

  it('requires no second factor of the environment provider unless OIDC_REQUIRE_MFA, with OIDC_ACR_VALUES as a comma list', () => {
    expect(loadConfig(OIDC).oidc).toMatchObject({ requireMfa: false, acrValues: [] });
    expect(
      loadConfig({ ...OIDC, OIDC_REQUIRE_MFA: 'true', OIDC_ACR_VALUES: 'urn:example:gold, silver' }).oidc,
    ).toMatchObject({ requireMfa: true, acrValues: ['urn:example:gold', 'silver'] });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', COOKIE_NAME: '' }).http.port).toBe(8080);
    expect(loadConfig({ COOKIE_NAME: '' }).cookie.name).toBe('sessionid');
  });
});

describe('loadConfig reads every variable', () => {
  it('parses the values it is given', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db.example:5432/gh',
      PROVIDE_BACKEND_INFO: 'true',
      SESSION_IDLE_TIMEOUT_S: '600',
      SESSION_ABSOLUTE_TIMEOUT_S: '7200',
      COOKIE_NAME: '__Host-sessionid',
      COOKIE_SAMESITE: 'strict',
      PASSWORD_MAX_AGE_DAYS: '90',
      LOGIN_MAX_FAILURES: '3',
      LOGIN_FAILURE_WINDOW_S: '60',
      TRUSTED_ORIGINS: 'https://portal.example.com, https://admin.example.com/',
      SSO_USER_LEVELS: '8,12',
      LOG_LEVEL: 'warn',
    });
    expect(config.http).toMatchObject({ port: 9000, host: '0.0.0.0' });
    expect(config.database).toMatchObject({ kind: 'postgres', url: 'postgres://u@db.example:5432/gh' });
    expect(config.provideBackendInfo).toBe(true);
    expect(config.session).toEqual({ idleTimeoutS: 600, absoluteTimeoutS: 7200, perUserMax: 100 });
    expect(config.cookie).toEqual({
      name: '__Host-sessionid',
      secure: true,
      sameSite: 'strict',
      domain: undefined,
    });
    expect(config.password.maxAgeDays).toBe(90);
    expect(config.throttle).toEqual({ maxFailures: 3, windowS: 60 });
    expect(config.trustedOrigins).toEqual(['https://portal.example.com', 'https://admin.example.com']);
    expect(config.sso.userLevels).toEqual([8, 12]);
    expect(config.logLevel).toBe('warn');
  });
});

describe('loadConfig refuses a bad value, naming the variable', () => {
  it.each<[string, Record<string, string>]>([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PROVIDE_BACKEND_INFO', { PROVIDE_BACKEND_INFO: 'maybe' }],
    ['SESSION_IDLE_TIMEOUT_S', { SESSION_IDLE_TIMEOUT_S: '-5' }],
    ['SESSION_ABSOLUTE_TIMEOUT_S', { SESSION_ABSOLUTE_TIMEOUT_S: '1.5' }],
    ['SESSION_IDLE_TIMEOUT_S', { SESSION_IDLE_TIMEOUT_S: '7200', SESSION_ABSOLUTE_TIMEOUT_S: '3600' }],
    ['COOKIE_NAME', { COOKIE_NAME: 'session id' }],
    ['COOKIE_SECURE', { COOKIE_SECURE: 'sometimes' }],
    ['COOKIE_SAMESITE', { COOKIE_SAMESITE: 'loose' }],
    ['COOKIE_SAMESITE', { COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'false' }],
    ['PASSWORD_MAX_AGE_DAYS', { PASSWORD_MAX_AGE_DAYS: 'ninety' }],
    ['LOGIN_MAX_FAILURES', { LOGIN_MAX_FAILURES: '0' }],
    ['LOGIN_FAILURE_WINDOW_S', { LOGIN_FAILURE_WINDOW_S: 'x' }],
    ['TRUSTED_ORIGINS', { TRUSTED_ORIGINS: 'https://ok.example.com,not a url' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['OIDC_TIMEOUT_MS', { ...OIDC, OIDC_TIMEOUT_MS: 'soon' }],
    ['OIDC_ID_TOKEN_ALG', { ...OIDC, OIDC_ID_TOKEN_ALG: 'HS256' }],
    ['OIDC_ID_TOKEN_ALG', { ...OIDC, OIDC_ID_TOKEN_ALG: 'none' }],
    ['OIDC_ID_TOKEN_ALG', { ...OIDC, OIDC_ID_TOKEN_ALG: 'rs256' }],
    ['OIDC_REDIRECT_URIS', { ...OIDC, OIDC_REDIRECT_URIS: '' }],
    ['OIDC_REQUIRE_MFA', { ...OIDC, OIDC_REQUIRE_MFA: 'always' }],
    ['OIDC_ACR_VALUES', { ...OIDC, OIDC_ACR_VALUES: 'gold,gold' }],
    ['OIDC_ACR_VALUES', { ...OIDC, OIDC_ACR_VALUES: 'gold,with space' }],
    ['OIDC_CLIENT_SECRET', { ...OIDC, OIDC_CLIENT_SECRET: '' }],
    ['OIDC_ISSUER', { OIDC_ISSUER: OIDC.OIDC_ISSUER }],
    ['SSO_USER_LEVELS', { SSO_USER_LEVELS: '8,9' }],
    ['SSO_REGISTRY_POLL_MS', { SSO_REGISTRY_POLL_MS: '60000' }],
    ['TOKEN_ENCRYPTION_KEY', { TOKEN_ENCRYPTION_KEY: 'c2hvcnQ=' }],
    [
      'TOKEN_ENCRYPTION_KEYS_PREVIOUS',
      {
        TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        TOKEN_ENCRYPTION_KEYS_PREVIOUS: 'c2hvcnQ=',
      },
    ],
    [
      'TOKEN_ENCRYPTION_KEYS_PREVIOUS',
      { TOKEN_ENCRYPTION_KEYS_PREVIOUS: Buffer.alloc(32, 2).toString('base64') },
    ],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUST_PROXY', { TRUST_PROXY: '11' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
  ])('%s', (variable, environment) => {
    const error = configError(environment);
    expect(error.problems.some((problem) => problem.includes(variable))).toBe(true);
    expect(error.message).toContain(variable);
  });

  it('never echoes a secret value in the message', () => {
    const error = configError({
      ...OIDC,
      OIDC_CLIENT_SECRET: 'sup3r-s3cret',
      TOKEN_ENCRYPTION_KEY: 'bm9wZQ==',
    });
    expect(error.message).toContain('TOKEN_ENCRYPTION_KEY');
    expect(error.message).not.toContain('sup3r-s3cret');
    expect(error.message).not.toContain('bm9wZQ==');
  });

  it('reports every problem at once', () => {
    const error = configError({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(error.problems.length).toBe(2);
  });
});

describe('loadConfig: OpenID issuer scheme', () => {
  it('refuses an http:// issuer without OIDC_ALLOW_INSECURE_HTTP', () => {
    const error = configError({ ...OIDC, OIDC_ISSUER: 'http://127.0.0.1:4000' });
    expect(error.message).toContain('OIDC_ISSUER');
    expect(error.message).toContain('OIDC_ALLOW_INSECURE_HTTP');
  });

  it('refuses an http:// issuer however the scheme is spelt', () => {
    expect(configError({ ...OIDC, OIDC_ISSUER: 'HTTP://idp.example.com' }).message).toContain('OIDC_ISSUER');
    expect(configError({ ...OIDC, OIDC_ISSUER: 'Http://idp.example.com' }).message).toContain('OIDC_ISSUER');
  });

  it('refuses an issuer that is neither https nor http', () => {
    expect(configError({ ...OIDC, OIDC_ISSUER: 'ftp://idp.example.com' }).message).toContain('OIDC_ISSUER');
  });

  it('accepts an http:// issuer with OIDC_ALLOW_INSECURE_HTTP=true', () => {
    const config = loadConfig({
      ...OIDC,
      OIDC_ISSUER: 'http://127.0.0.1:4000',
      OIDC_ALLOW_INSECURE_HTTP: 'true',
    });
    expect(config.oidc).toMatchObject({ issuer: 'http://127.0.0.1:4000', allowInsecureHttp: true });
  });

  it('accepts an https:// issuer', () => {
    expect(loadConfig(OIDC).oidc?.issuer).toBe(OIDC.OIDC_ISSUER);
  });
});

describe('loadConfig: cookie prefixes', () => {
  it('accepts __Host- with Secure and no Domain', () => {
    expect(loadConfig({ COOKIE_NAME: '__Host-sessionid' }).cookie.name).toBe('__Host-sessionid');
  });

  it('refuses __Host- with a Domain', () => {
    const error = configError({ COOKIE_NAME: '__Host-sessionid', COOKIE_DOMAIN: 'example.com' });
    expect(error.message).toContain('COOKIE_NAME');
  });

  it('refuses __Host- without Secure', () => {
    const error = configError({ COOKIE_NAME: '__Host-sessionid', COOKIE_SECURE: 'false' });
    expect(error.message).toContain('COOKIE_NAME');
  });

  it('refuses __Secure- without Secure, accepts it with a Domain', () => {
    expect(configError({ COOKIE_NAME: '__Secure-sessionid', COOKIE_SECURE: 'false' }).message).toContain(
      'COOKIE_NAME',
    );
    expect(loadConfig({ COOKIE_NAME: '__Secure-sessionid', COOKIE_DOMAIN: 'example.com' }).cookie).toEqual({
      name: '__Secure-sessionid',
      secure: true,
      sameSite: 'lax',
      domain: 'example.com',
    });
  });
});

describe('loadConfig result', () => {
  it('is frozen, deeply', () => {
    const config = loadConfig({ ...OIDC, TRUSTED_ORIGINS: 'https://portal.example.com' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.cookie)).toBe(true);
    expect(Object.isFrozen(config.session)).toBe(true);
    expect(Object.isFrozen(config.password.argon2)).toBe(true);
    expect(Object.isFrozen(config.trustedOrigins)).toBe(true);
    expect(Object.isFrozen(config.oidc)).toBe(true);
    expect(Object.isFrozen(config.oidc?.redirectUris)).toBe(true);
    expect(Object.isFrozen(config.interpreterSettings)).toBe(true);
    expect(() => {
      (config.cookie as { secure: boolean }).secure = false;
    }).toThrow(TypeError);
    expect(() => {
      (config as { provideBackendInfo: boolean }).provideBackendInfo = true;
    }).toThrow(TypeError);
    expect(() => config.trustedOrigins.push('https://evil.example')).toThrow(TypeError);
    expect(config.cookie.secure).toBe(true);
  });

  it('does not freeze or keep a live link to the environment it was given', () => {
    const environment: Record<string, string> = { SSO_INTERPRETER_CUSTOM_SETTING: 'a' };
    const config = loadConfig(environment);
    expect(Object.isFrozen(environment)).toBe(false);
    environment.SSO_INTERPRETER_CUSTOM_SETTING = 'b';
    expect(config.interpreterSettings.CUSTOM_SETTING).toBe('a');
  });

  // Issue 11, finding 11: a customer package gets its own settings, not the service's secrets.
  it('hands an interpreter its SSO_INTERPRETER_* variables without the prefix, and nothing else', () => {
    const config = loadConfig({
      SSO_INTERPRETER_ACME_CLAIMS_NAMESPACE: 'https://acme.example/v2',
      SSO_INTERPRETER_: 'nameless',
      DATABASE_URL: 'postgres://secret@db/gatehouse',
      OIDC_CLIENT_SECRET: 'sup3r-s3cret',
      HOME: '/root',
    });
    expect(config.interpreterSettings).toEqual({ ACME_CLAIMS_NAMESPACE: 'https://acme.example/v2' });
  });
});
