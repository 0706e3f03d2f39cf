import { z } from 'zod';
import { DomainError } from '../../domain/shared/domain-error.js';

/**
 * Request and response schemas, compiled once at start-up. Unknown request fields are ignored
 * (zod strips them); known fields are type-checked. The OpenAPI document is generated from these.
 */
const deprecatedProvideBasicProfile = z
  .boolean()
  .optional()
  .meta({ deprecated: true, description: 'Deprecated and ignored: the basic profile is always returned.' });

export const loginRequestSchema = z.object({
  username: z.string().min(1).max(200).meta({ example: 'ann' }),
  password: z.string().min(1).max(4096).meta({ example: 'correct horse battery staple' }),
  provide_basic_profile: deprecatedProvideBasicProfile,
});

export const passwordChangeRequestSchema = z.object({
  old_password: z.string().min(1).max(4096),
  new_password: z.string().max(4096),
});

export const ssoLoginRequestSchema = z.object({
  nonce: z.string().min(1).max(512),
  authorization_code: z.string().min(1).max(4096),
  redirect_uri: z.string().min(1).max(2048),
  code_verifier: z
    .string()
    .regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'must be an RFC 7636 code verifier')
    .optional(),
  provide_basic_profile: deprecatedProvideBasicProfile,
});

export const emptyRequestSchema = z.object({});

export const idsSchema = z
  .object({
    tenant_id: z.string().optional(),
    group_id: z.string().optional(),
    user_id: z.string().optional(),
  })
  .meta({ id: 'Ids' });

export const profileSchema = z
  .object({
    user_level: z.number().int(),
    is_first_login: z.boolean(),
    platform_type: z.string().optional(),
    username: z.string().optional(),
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    language: z.string().optional(),
    language_code: z.string().optional(),
    emailAddress: z.string().optional(),
    access_type: z.number().int().optional(),
    read_only: z.boolean().optional(),
    user_type: z.string().optional(),
    is_expired: z.boolean().optional(),
    expires_in: z.number().int().optional(),
    backendName: z.string().optional(),
    backendExternalName: z.string().optional(),
    phoneNumber: z.string().optional(),
    role: z.string().optional(),
    is_enterprise: z.boolean().optional(),
  })
  .meta({ id: 'Profile' });

export const loginResponseSchema = z
  .object({ ids: idsSchema, profile: profileSchema })
  .meta({ id: 'LoginResponse' });

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
