import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { BOOTSTRAP_ADMIN_USERNAME } from '../application/bootstrap-admin.js';

export interface AnnouncementTarget {
  /** Where the service writes for its operator; a terminal (`isTTY`) is read by a person, not kept. */
  stdout: { isTTY?: boolean; write(text: string): unknown };
  /** The private file for the password when stdout is not a terminal (BOOTSTRAP_PASSWORD_FILE). */
  file: string;
}

/**
 * Tells the operator the bootstrap administrator's one-time password (ASVS 13.3.x, secrets not in
 * logs). On a terminal it is printed, as a person reads it there. Anywhere else stdout is a log
 * that is kept, shipped and read by many (a container runtime, journald), so the password goes to a
 * new file only the service's user can read, and stdout says where. The file is created, never
 * overwritten: an existing one is someone's, and stays as it is.
 */
export function announceBootstrapPassword(password: string, target: AnnouncementTarget): void {
  const header = `\nGatehouse created the system administrator "${BOOTSTRAP_ADMIN_USERNAME}".\n`;
  const footer = '  It is expired: log in, then change it with POST /api/v1/password/.\n\n';
  if (target.stdout.isTTY) {
    target.stdout.write(`${header}  one-time password: ${password}\n${footer}`);
    return;
  }
  const path = resolve(target.file);
  try {
    // 'wx': create only; 0600 whatever the umask lets through (the umask can only take bits away).
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${password}\n`);
    } finally {
      closeSync(fd);
    }
    target.stdout.write(
      `${header}  its one-time password is in ${path} (readable by this user only); delete the file once used.\n${footer}`,
    );
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'error';
    target.stdout.write(
      `${header}  its one-time password could not be written to ${path} (${reason}), and is not printed ` +
        `into this log. Set a password with: gatehouse user set-password ${BOOTSTRAP_ADMIN_USERNAME} --password-stdin\n\n`,
    );
  }
}
