import type { Store } from '../../domain/store.port.js';
import type { Backend } from '../../domain/user/user.js';
import type { Group, Tenant } from '../../domain/user/user-repository.port.js';
import { createBackend, createGroup, createTenant, DirectoryLookups } from './directory-writes.js';

/** `gatehouse tenant add`, `group add`, `backend add`: each check and write in one transaction. */
export class AdminDirectory {
  constructor(private readonly store: Store) {}

  addTenant(tenant: Tenant): Promise<void> {
    return this.store.transaction((repositories) => createTenant(new DirectoryLookups(repositories), tenant));
  }

  addGroup(group: Group): Promise<void> {
    return this.store.transaction((repositories) => createGroup(new DirectoryLookups(repositories), group));
  }

  addBackend(backend: Backend): Promise<void> {
    return this.store.transaction((repositories) =>
      createBackend(new DirectoryLookups(repositories), backend),
    );
  }
}
