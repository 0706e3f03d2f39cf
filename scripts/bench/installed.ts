import { execFileSync } from 'node:child_process';

/**
 * Whether the machine has `command` (it answers `versionArgs`): the Redis targets need
 * `redis-server`, forward auth needs `nginx`; a target without its program is skipped, and said so.
 */
export function installed(command: string, versionArgs: string[] = ['--version']): boolean {
  try {
    execFileSync(command, versionArgs, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
