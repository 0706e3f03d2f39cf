import { DomainError, type FieldError } from '../../domain/shared/domain-error.js';
import type { Repositories } from '../../domain/store.port.js';
import type { Backend, User, UserAttributes, UserLevel } from '../../domain/user/user.js';
import type { Group, Tenant } from '../../domain/user/user-repository.port.js';
import { assertValidNewUser, identifierViolation } from '../../domain/user/user-rules.js';

/**
 * The writes shared by the administration use cases and the import: each checks what the store
 * knows (unknown references, existing names) first, so a refusal names the field and the value
 * rather than surfacing a constraint violation. Callers run them inside one transaction.
 */

export function invalid(path: string, message: string): DomainError {
  return new DomainError('INVALID_REQUEST', `${path}: ${message}`, { errors: [{ path, message }] });
}

export function conflict(path: string, message: string): DomainError {
  return new DomainError('CONFLICT', `${path}: ${message}`, { errors: [{ path, message }] });
}

export function notFound(message: string): DomainError {
  return new DomainError('NOT_FOUND', message);
}

function assertIdentifier(path: string, value: string): void {
  const violation: FieldError | null = identifierViolation(path, value);
  if (violation) throw invalid(violation.path, violation.message);
}

/** Look-ups of one unit of work, remembered so a large import asks once per tenant, group or backend. */
export class DirectoryLookups {
  private readonly tenants = new Map<string, Promise<Tenant | null>>();
  private readonly groups = new Map<string, Promise<Group | null>>();
  private readonly backends = new Map<string, Promise<Backend | null>>();

  constructor(readonly repositories: Repositories) {}

  tenant(id: string): Promise<Tenant | null> {
    return remember(this.tenants, id, () => this.repositories.directory.findTenant(id));
  }

  group(id: string): Promise<Group | null> {
    return remember(this.groups, id, () => this.repositories.directory.findGroup(id));
  }

  backend(name: string): Promise<Backend | null> {
    return remember(this.backends, name, () => this.repositories.directory.findBackend(name));
  }

  /** Records what this unit of work has just written, so later look-ups see it. */
  added(entry: { tenant: Tenant } | { group: Group } | { backend: Backend }): void {
    if ('tenant' in entry) this.tenants.set(entry.tenant.id, Promise.resolve(entry.tenant));
    else if ('group' in entry) this.groups.set(entry.group.id, Promise.resolve(entry.group));
    else this.backends.set(entry.backend.name, Promise.resolve(entry.backend));
  }
}

function remember<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let found = cache.get(key);
  if (!found) {
    found = load();
    cache.set(key, found);
  }
  return found;
}

export async function createTenant(lookups: DirectoryLookups, tenant: Tenant): Promise<void> {
  assertIdentifier('id', tenant.id);
  if (await lookups.tenant(tenant.id))
    throw conflict('id', `tenant ${JSON.stringify(tenant.id)} already exists`);
  await lookups.repositories.directory.addTenant(tenant.id, tenant.name);
  lookups.added({ tenant });
}

export async function createGroup(lookups: DirectoryLookups, group: Group): Promise<void> {
  assertIdentifier('id', group.id);
  assertIdentifier('tenant_id', group.tenantId);
  if (!(await lookups.tenant(group.tenantId))) {
    throw invalid('tenant_id', `unknown tenant ${JSON.stringify(group.tenantId)}`);
  }
  if (await lookups.group(group.id)) throw conflict('id', `group ${JSON.stringify(group.id)} already exists`);
  await lookups.repositories.directory.addGroup(group.id, group.tenantId, group.name);
  lookups.added({ group });
}

export async function createBackend(lookups: DirectoryLookups, backend: Backend): Promise<void> {
  assertIdentifier('name', backend.name);
  if (await lookups.backend(backend.name)) {
    throw conflict('name', `backend ${JSON.stringify(backend.name)} already exists`);
  }
  await lookups.repositories.directory.addBackend(backend);
  lookups.added({ backend });
}

/** A new account as the administration describes it; `userId` null means "generate one". */
export interface NewUserInput extends Partial<UserAttributes> {
  username: string;
  userLevel: number;
  tenantId: string | null;
  groupId: string | null;
  userId: string | null;
  backendName: string | null;
}

export interface NewUserCredentials {
  passwordHash: string | null;
  mustChangePassword: boolean;
}

/** Checks the account against the level rules and the store, then creates it. */
export async function createUser(
  lookups: DirectoryLookups,
  input: NewUserInput & { userId: string },
  credentials: NewUserCredentials,
  now: Date,
): Promise<User> {
  assertValidNewUser(input);
  if (input.tenantId !== null && !(await lookups.tenant(input.tenantId))) {
    throw invalid('tenant_id', `unknown tenant ${JSON.stringify(input.tenantId)}`);
  }
  if (input.groupId !== null) {
    const group = await lookups.group(input.groupId);
    if (!group) throw invalid('group_id', `unknown group ${JSON.stringify(input.groupId)}`);
    if (group.tenantId !== input.tenantId) {
      throw invalid(
        'group_id',
        `group ${JSON.stringify(group.id)} belongs to tenant ${JSON.stringify(group.tenantId)}, not ${JSON.stringify(input.tenantId)}`,
      );
    }
  }
  if (input.backendName !== null && !(await lookups.backend(input.backendName))) {
    throw invalid('backend', `unknown backend ${JSON.stringify(input.backendName)}`);
  }
  const { users } = lookups.repositories;
  if (await users.findByUsername(input.username)) {
    throw conflict('username', `user ${JSON.stringify(input.username)} already exists`);
  }
  if (await users.findByUserId(input.userId)) {
    throw conflict('user_id', `user id ${JSON.stringify(input.userId)} is already taken`);
  }
  return users.create(
    {
      platformType: input.platformType ?? null,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      language: input.language ?? null,
      languageCode: input.languageCode ?? null,
      emailAddress: input.emailAddress ?? null,
      accessType: input.accessType ?? null,
      readOnly: input.readOnly ?? null,
      userType: input.userType ?? null,
      phoneNumber: input.phoneNumber ?? null,
      role: input.role ?? null,
      isEnterprise: input.isEnterprise ?? null,
      userId: input.userId,
      username: input.username,
      userLevel: input.userLevel as UserLevel,
      tenantId: input.tenantId,
      groupId: input.groupId,
      backendName: input.backendName,
      passwordHash: credentials.passwordHash,
      mustChangePassword: credentials.mustChangePassword,
    },
    now,
  );
}
