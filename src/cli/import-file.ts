import { z } from 'zod';
import type { ImportRecord } from '../application/admin/import-users.js';
import { DomainError } from '../domain/shared/domain-error.js';

/**
 * The import file format of contract section 8: one JSON object a line (JSON Lines), keys fixed.
 * Blank lines are skipped. Unknown keys are refused rather than ignored, so a misspelt key
 * (`"pasword"`) cannot silently create an account without what the file meant to give it.
 * `null` stands for "absent" on every optional key, as exports from other systems often write it.
 */

const text = z.string();
const optionalText = z.string().nullish();

const tenantLine = z.strictObject({
  kind: z.literal('tenant'),
  id: text,
  name: optionalText,
});

const backendLine = z.strictObject({
  kind: z.literal('backend'),
  name: text,
  external_name: optionalText,
});

const groupLine = z.strictObject({
  kind: z.literal('group'),
  id: text,
  tenant_id: text,
  name: optionalText,
});

const isoDate = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/,
    'must be an ISO 8601 date (2025-01-31) or date-time with a zone (2025-01-31T12:00:00Z)',
  )
  .refine((value) => !Number.isNaN(Date.parse(value)), 'is not a valid date');

const userLine = z.strictObject({
  kind: z.literal('user'),
  username: text,
  user_level: z.number().int(),
  tenant_id: optionalText,
  group_id: optionalText,
  user_id: optionalText,
  backend: optionalText,
  password: optionalText,
  password_hash: optionalText,
  must_change_password: z.boolean().nullish(),
  credentials_expire_at: isoDate.nullish(),
  disabled: z.boolean().nullish(),
  // Profile keys of spec section 2.3, spelt as the spec spells them.
  first_name: optionalText,
  last_name: optionalText,
  language: optionalText,
  language_code: optionalText,
  emailAddress: optionalText,
  phoneNumber: optionalText,
  platform_type: optionalText,
  access_type: z.number().int().nullish(),
  read_only: z.boolean().nullish(),
  user_type: optionalText,
  role: optionalText,
  is_enterprise: z.boolean().nullish(),
});

const schemas = { tenant: tenantLine, backend: backendLine, group: groupLine, user: userLine } as const;
type Kind = keyof typeof schemas;
const KINDS = Object.keys(schemas) as Kind[];

function lineError(line: number, path: string, message: string): DomainError {
  return new DomainError('INVALID_REQUEST', `line ${line}: ${path}: ${message}`, {
    errors: [{ path: `line ${line}: ${path}`, message }],
  });
}

function describeIssue(issue: z.core.$ZodIssue): { path: string; message: string } {
  if (issue.code === 'unrecognized_keys') {
    return { path: issue.keys.join(', '), message: 'unknown key (see contract section 8 for the keys)' };
  }
  return { path: issue.path.map(String).join('.') || '(line)', message: issue.message };
}

/** Parses one line; throws INVALID_REQUEST naming the line and the field. */
export function parseImportLine(source: string, line: number): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    // The parser's own message quotes the line, which may hold a password: only its position is kept.
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    const where = position === undefined ? '' : ` at column ${Number(position) + 1}`;
    throw new DomainError('INVALID_REQUEST', `line ${line}: invalid JSON${where}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw lineError(line, '(line)', 'must be a JSON object');
  }
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !KINDS.includes(kind as Kind)) {
    throw lineError(line, 'kind', `must be one of ${KINDS.map((name) => `"${name}"`).join(', ')}`);
  }
  const parsed = schemas[kind as Kind].safeParse(value);
  if (!parsed.success) {
    const { path, message } = describeIssue(parsed.error.issues[0]!);
    throw lineError(line, path, message);
  }
  const data = parsed.data;
  switch (data.kind) {
    case 'tenant':
      return { kind: 'tenant', line, id: data.id, name: data.name ?? null };
    case 'backend':
      return { kind: 'backend', line, name: data.name, externalName: data.external_name ?? null };
    case 'group':
      return { kind: 'group', line, id: data.id, tenantId: data.tenant_id, name: data.name ?? null };
    case 'user':
      return {
        kind: 'user',
        line,
        username: data.username,
        userLevel: data.user_level,
        tenantId: data.tenant_id ?? null,
        groupId: data.group_id ?? null,
        userId: data.user_id ?? null,
        backendName: data.backend ?? null,
        password: data.password ?? null,
        passwordHash: data.password_hash ?? null,
        mustChangePassword: data.must_change_password ?? false,
        credentialsExpireAt: data.credentials_expire_at ? new Date(data.credentials_expire_at) : null,
        disabled: data.disabled ?? false,
        firstName: data.first_name ?? null,
        lastName: data.last_name ?? null,
        language: data.language ?? null,
        languageCode: data.language_code ?? null,
        emailAddress: data.emailAddress ?? null,
        phoneNumber: data.phoneNumber ?? null,
        platformType: data.platform_type ?? null,
        accessType: data.access_type ?? null,
        readOnly: data.read_only ?? null,
        userType: data.user_type ?? null,
        role: data.role ?? null,
        isEnterprise: data.is_enterprise ?? null,
      };
  }
}

/** Parses a whole JSON Lines file; the first bad line stops it, naming its number. */
export function parseImportFile(content: string): ImportRecord[] {
  const records: ImportRecord[] = [];
  const lines = content.replace(/^\uFEFF/, '').split('\n');
  for (const [index, raw] of lines.entries()) {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') continue;
    records.push(parseImportLine(source, index + 1));
  }
  return records;
}
