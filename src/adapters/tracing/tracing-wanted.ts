/**
 * Tracing is on when the operator set any standard `OTEL_*` variable (the endpoint, the protocol,
 * the service name, the sampler, ...), and off otherwise, or when the standard switches say off
 * (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`). Off, nothing of the SDK is loaded:
 * this file imports nothing so that the check itself costs nothing.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Object.keys(env).some((name) => name.startsWith('OTEL_') && env[name]?.trim());
}
