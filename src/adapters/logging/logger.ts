import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout. Redaction is a second line of defence: the code never passes
 * passwords, cookies or tokens to the logger in the first place.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: 'gatehouse' },
    redact: {
      paths: [
        'password',
        '*.password',
        'old_password',
        'new_password',
        'token',
        '*.token',
        'cookie',
        'headers.cookie',
        'authorization_code',
        'code_verifier',
        'id_token',
        'access_token',
        'refresh_token',
        'client_secret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination as never) : pino(options);
}
