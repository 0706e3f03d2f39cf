/**
 * `node --import @gatehouse-auth/gatehouse/tracing app.js`: for an app that embeds Gatehouse
 * (createGatehouse) and has no OpenTelemetry set-up of its own. When an `OTEL_*` variable is set
 * it starts the SDK as the service's own entry does (start.cts), before the app imports
 * `pg`, `ioredis` or `pino`; otherwise it loads nothing more. An app with its own SDK leaves this
 * out: Gatehouse's spans go to whichever SDK the process registered.
 */
import { startTracingIfWanted } from './boot/tracing.js';

await startTracingIfWanted();
