import { z } from 'zod';
import { DomainError, type ErrorCode } from '../../domain/shared/domain-error.js';
import { STATUS_BY_CODE } from './problem.js';

/**
 * Request and response schemas, compiled once at start-up. Unknown request fields are ignored
 * (zod strips them); known fields are type-checked. The OpenAPI document is generated from these.
 */
const deprecatedProvideBasicProfile = z
  .boolean()
  .optional()
  .meta({ deprecated: true, description: 'Deprecated and ignored: the basic profile is always returned.' });

export const loginRequestSchema = z
  .object({
    username: z.string().min(1).max(200).meta({ example: 'ann' }),
    password: z.string().min(1).max(4096).meta({ example: 'correct horse battery staple' }),
    provide_basic_profile: deprecatedProvideBasicProfile,
  })
  .meta({ id: 'LoginRequest' });

export const passwordChangeRequestSchema = z
  .object({
    old_password: z.string().min(1).max(4096),
    new_password: z.string().max(4096),
  })
  .meta({
    id: 'PasswordChangeRequest',
    examples: [{ old_password: 'correct horse battery staple', new_password: 'a brand new passphrase' }],
  });

export const ssoLoginRequestSchema = z
  .object({
    nonce: z.string().min(1).max(512),
    authorization_code: z.string().min(1).max(4096),
    redirect_uri: z.string().min(1).max(2048),
    code_verifier: z
      .string()
      .regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'must be an RFC 7636 code verifier')
      .optional(),
    provide_basic_profile: deprecatedProvideBasicProfile,
  })
  .meta({
    id: 'SsoLoginRequest',
    examples: [
      {
        nonce: 'n-0S6_WzA2Mj',
        authorization_code: 'SplxlOBeZQQYbYS6WxSbIA',
        redirect_uri: 'https://portal.example.com/sso/callback',
      },
    ],
  });

export const emptyRequestSchema = z
  .object({})
  .meta({ id: 'EmptyRequest', description: 'An empty JSON object (or no body at all).' });

/**
 * OpenID Connect Back-Channel Logout 1.0: the provider posts a form. Documents the body; the
 * route reads the one field itself (src/adapters/http/routes/sso-routes.ts).
 */
export const backchannelLogoutRequestSchema = z
  .object({
    logout_token: z
      .string()
      .min(1)
      .meta({ description: 'The logout token (a signed JWT) from the provider.' }),
  })
  .meta({ id: 'BackchannelLogoutRequest' });

export const idsSchema = z
  .object({
    tenant_id: z.string().optional().meta({ description: 'Identifier of the tenant.' }),
    group_id: z.string().optional().meta({ description: 'Identifier of the group.' }),
    user_id: z.string().optional().meta({ description: 'Identifier of the end user.' }),
  })
  .meta({
    id: 'Ids',
    description: 'Identifiers for building further API URLs; only those relevant to the user level.',
  });

const profileShape = {
  user_level: z.literal([0, 4, 8, 12, 16]).meta({
    description: '0 End User, 4 Department Admin, 8 Group Admin, 12 Tenant Admin, 16 System Admin.',
  }),
  is_first_login: z.boolean().meta({ description: "True on the user's first successful login." }),
  platform_type: z.string().optional(),
  username: z.string().optional().meta({ description: 'Always returned (interface 1.11.0).' }),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  language: z.string().optional(),
  language_code: z.string().optional(),
  emailAddress: z.string().optional(),
  access_type: z.number().int().optional().meta({ description: '0 Normal, 1 Restricted, 3 Super.' }),
  read_only: z.boolean().optional(),
  user_type: z.string().optional(),
  is_expired: z.boolean().optional().meta({
    description: 'True when the credentials expired: only a password change or a logout is accepted.',
  }),
  expires_in: z
    .number()
    .int()
    .optional()
    .meta({ description: 'Whole days before the login expires, when login expiration is on.' }),
  backendName: z.string().optional().meta({ description: 'Only with PROVIDE_BACKEND_INFO=true.' }),
  backendExternalName: z.string().optional().meta({ description: 'Only with PROVIDE_BACKEND_INFO=true.' }),
  phoneNumber: z.string().optional().meta({ description: 'Login answers only.' }),
  role: z.string().optional(),
  is_enterprise: z.boolean().optional(),
};

export const profileSchema = z.object(profileShape).meta({ id: 'Profile' });

const loginResponseExample = {
  ids: { tenant_id: 't1', group_id: 'g1', user_id: 'u-ann' },
  profile: { user_level: 0, is_first_login: false, username: 'ann', first_name: 'Ann', language_code: 'en' },
};

/** The answer of both logins and of the password change: spec 4.1 and 4.2. */
export const loginResponseSchema = z
  .object({ ids: idsSchema, profile: profileSchema })
  .meta({ id: 'LoginResponse', examples: [loginResponseExample] });

/** How and when the current session was made (contract 3b step-up). */
export const sessionFactsSchema = z
  .object({
    amr: z
      .array(z.string())
      .describe(
        'RFC 8176 method references: `pwd`, `otp`, `hwk`, `recovery`, `mfa`, `sso` and a provider’s own.',
      ),
    auth_time: z.number().int().describe('When the user last proved who they are, in Unix seconds.'),
  })
  .meta({ id: 'SessionFacts' });

/**
 * `GET /api/v1/session/`: as a login answer, without `phoneNumber` (login answer only), and with
 * how and when the session was made.
 */
export const sessionViewSchema = z
  .object({
    ids: idsSchema,
    profile: profileSchema.omit({ phoneNumber: true }).meta({ id: 'SessionProfile' }),
    session: sessionFactsSchema,
  })
  .meta({
    id: 'SessionView',
    examples: [{ ...loginResponseExample, session: { amr: ['pwd', 'otp'], auth_time: 1_795_000_000 } }],
  });

export const emptyResponseSchema = z.object({}).meta({ id: 'EmptyResponse', examples: [{}] });

/** A path parameter naming one of the caller's sessions (`DELETE /api/v1/sessions/{handle}/`). */
export const sessionHandleSchema = z
  .string()
  .min(1)
  .max(64)
  // Handles are base64url (newSessionHandle); anything else (a NUL byte...) is not one of yours.
  .regex(/^[A-Za-z0-9_-]+$/)
  .meta({ description: 'The opaque handle of one of your sessions, as listed by GET /api/v1/sessions/.' });

export const ownSessionSchema = z
  .object({
    handle: z.string().meta({
      description:
        'Opaque identifier of the session, for ending it. Not the cookie value, nor derived from it.',
    }),
    method: z.enum(['password', 'sso']).meta({ description: 'How the session was opened.' }),
    provider: z.string().optional().meta({
      description:
        'SSO sessions only: the id of the OpenID provider the session logged in through (`default`: the one configured with OIDC_*).',
    }),
    created_at: z.iso.datetime().meta({ description: 'When the session was opened (login).' }),
    last_seen_at: z.iso
      .datetime()
      .meta({ description: 'Last request seen with it (recorded at most once a minute).' }),
    expires_at: z.iso.datetime().meta({ description: 'Absolute end of life; idle time-out aside.' }),
    client_address: z.string().optional().meta({ description: 'Client address at login.' }),
    user_agent: z.string().optional().meta({ description: 'User-Agent at login (first 512 characters).' }),
    current: z.boolean().meta({ description: 'True for the session this request was made with.' }),
  })
  .meta({ id: 'OwnSession' });

const ownSessionExample = {
  handle: 'q9bS1f2yQk6cJ0aH',
  method: 'password',
  created_at: '2030-01-01T08:00:00.000Z',
  last_seen_at: '2030-01-01T09:12:00.000Z',
  expires_at: '2030-01-01T20:00:00.000Z',
  client_address: '192.0.2.10',
  user_agent: 'Mozilla/5.0',
  current: true,
};

/** `GET /api/v1/sessions/`: the caller's live sessions, newest first. */
export const sessionListSchema = z
  .object({
    sessions: z.array(ownSessionSchema),
    next_cursor: z
      .string()
      .optional()
      .meta({ description: 'Present when more sessions remain: pass it as `cursor` for the next page.' }),
  })
  .meta({ id: 'SessionList', examples: [{ sessions: [ownSessionExample] }] });

/** `GET /api/v1/sessions/?limit=&cursor=`: the list is paged, never loaded whole. */
/**
 * The forward-auth check's step-up (contract 3b), set per location in a gateway's configuration:
 * `mfa=1` (two factors) and `max_age=S` (an authentication at most S seconds ago). Anything else
 * given for them is a configuration mistake, answered 400 rather than taken as "no demand".
 */
export const checkQuerySchema = z.object({
  mfa: z.literal('1', 'must be 1').optional(),
  max_age: z
    .string()
    .regex(/^\d{1,10}$/, 'must be a whole number of seconds')
    .transform(Number)
    .optional(),
});

export const sessionListQuerySchema = z
  .object({
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, 'must be a whole number from 1 to 100')
          .max(100, 'must be a whole number from 1 to 100'),
      )
      .optional()
      .meta({ description: 'Sessions per page, 1 to 100 (default 50).' }),
    cursor: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'The `next_cursor` of the previous page.' }),
  })
  .meta({ id: 'SessionListQuery' });

/** Reads a query string: one value per name (a repeated name is refused), unknown names ignored. */
export function parseQuery<T extends z.ZodType>(
  schema: T,
  query: Record<string, string | string[] | undefined>,
): z.infer<T> {
  const single: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) {
      throw new DomainError('INVALID_REQUEST', `${name}: given more than once`, {
        errors: [{ path: name, message: 'given more than once' }],
      });
    }
    if (value !== undefined) single[name] = value;
  }
  const parsed = schema.safeParse(single);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(query)',
      message: issue.message,
    }));
    throw new DomainError('INVALID_REQUEST', `${errors[0]!.path}: ${errors[0]!.message}`, { errors });
  }
  return parsed.data;
}

/** `POST /api/v1/sessions/revoke-others/`: how many of the caller's other sessions ended. */
export const sessionsRevokedSchema = z
  .object({ revoked: z.number().int().min(0).meta({ description: 'Sessions ended.' }) })
  .meta({ id: 'SessionsRevoked', examples: [{ revoked: 2 }] });

export const healthResponseSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

export const readinessResponseSchema = z
  .object({
    status: z.enum(['ready', 'unavailable']),
    /**
     * Where sessions live: `sql` (the database), `memory` (this process), `redis` (one server),
     * `redis-cluster`, or `module` (the deployment's own store, SESSION_STORE_MODULE).
     */
    session_store: z.enum(['sql', 'memory', 'redis', 'redis-cluster', 'module']),
  })
  .meta({ id: 'Readiness' });

/** Every code, in the order of STATUS_BY_CODE. */
export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as [ErrorCode, ...ErrorCode[]];

/** RFC 9457 problem details with the stable `code` member (src/adapters/http/problem.ts). */
export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(ERROR_CODES).meta({ description: 'Stable, machine-readable: match on this.' }),
    detail: z.string(),
    request_id: z.string().meta({ description: 'Also sent as the X-Request-Id header.' }),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Validation errors, field by field.' }),
  })
  .meta({ id: 'Problem' });

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('INVALID_REQUEST', 'The body must be a JSON object.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new DomainError('INVALID_REQUEST', 'The request body is invalid.', {
      errors: parsed.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.') || '(body)',
        message: issue.message,
      })),
    });
  }
  return parsed.data;
}
