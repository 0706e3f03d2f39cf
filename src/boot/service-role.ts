import type { RunForwarded } from '../cli/admin-socket-server.js';

/**
 * Which process a container serves, so one lifecycle serves all three:
 * - `embedded`: an embedder's `createGatehouse` (the core steps; the embedder listens);
 * - `setup`: the primary process of WORKERS=n, which migrates and bootstraps once, then closes;
 * - `service`: the service process (`npm start`, `gatehouse serve`, a worker), which also warms
 *   the hasher up, opens the administration socket and listens. `bootstrap` is false in a worker
 *   (its primary has bootstrapped); `runCommand` runs a forwarded `gatehouse` command.
 */
export type ServiceRole =
  | { kind: 'embedded' }
  | { kind: 'setup' }
  | { kind: 'service'; bootstrap: boolean; runCommand: RunForwarded };
