/**
 * `@gatehouse-auth/gatehouse/testing/stores` (`@gatehouse-auth/gatehouse-testing/stores`): the contract suites a session store and
 * a throttle store must pass, for a team writing its own (DynamoDB, Valkey, MongoDB, ...). They run
 * against the store alone: no database, no service.
 *
 *   import { sessionStoreContract, throttleStoreContract } from '@gatehouse-auth/gatehouse-testing/stores';
 *   sessionStoreContract({ name: 'dynamodb', declares: [], open: async () => ({ sessions: new MyStore() }) });
 *
 * Optional capabilities (`SessionStoreCapabilities`) are tested only when the store declares them
 * in `declares`; the others' tests are not registered at all (not skipped), and the suite's name
 * says which were left out. One test checks that the store declares exactly what `declares` says.
 */
export { contractAuth, contractSession, contractSsoData } from './contract-fixtures.js';
export * from './service-stores.js';
export * from './session-store-contract.js';
// What a store's author implements against (also `/store-runtime`, without vitest), and the
// suite of a store in the running service.
export * from './store-runtime.js';
export * from './throttle-store-contract.js';
