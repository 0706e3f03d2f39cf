import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Start-up stops: the embedded database's folder can be read (or entered) by other local users. */
export class DataDirNotPrivateError extends Error {
  constructor(
    readonly dir: string,
    readonly mode: number,
  ) {
    super(
      `DATA_DIR ${dir} is accessible to other users (mode ${mode.toString(8).padStart(3, '0')}); its files ` +
        `hold password hashes. Make it private: chmod 700 ${dir}`,
    );
    this.name = 'DataDirNotPrivateError';
  }
}

/**
 * The embedded database's folder, private to the service's user (ASVS 14.2.x, sensitive data
 * protected at rest on the host): its WAL and tables hold password hashes.
 *
 * A missing folder is created 0700. An existing one with any group or other permission is
 * refused rather than silently tightened: someone chose those modes, and may have copied the
 * files already. The folder's mode is the protection that holds at all times: PGlite (through
 * Emscripten's file system) creates its files 0666 whatever the umask, so `closeFilesToOthers`
 * tightens them at each open and close (by the process holding the folder), and between those no
 * other user can enter the folder.
 */
export function preparePrivateDataDir(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // mkdir's mode passes through the umask; this one does not.
  }
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) throw new DataDirNotPrivateError(dir, mode);
}

/** Takes group and other permissions off every file and folder under `dir`. */
export function closeFilesToOthers(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
    if (entry.isDirectory()) closeFilesToOthers(path);
  }
}
