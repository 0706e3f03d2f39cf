import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { announceBootstrapPassword } from '../../src/boot/announce-bootstrap-password.js';

const PASSWORD = 'Zq3-one-time-password-xY';

function capture(isTTY: boolean) {
  const written: string[] = [];
  return { stdout: { isTTY, write: (text: string) => written.push(text) }, text: () => written.join('') };
}

// Issue 11, finding 11: the bootstrap password must not land in a kept log.
describe('announceBootstrapPassword', () => {
  it('prints the password on a terminal, and writes no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-bootstrap-'));
    const out = capture(true);
    announceBootstrapPassword(PASSWORD, { stdout: out.stdout, file: join(dir, 'pw') });
    expect(out.text()).toContain(`one-time password: ${PASSWORD}`);
    expect(() => statSync(join(dir, 'pw'))).toThrow();
  });

  it('elsewhere writes it to a new 0600 file and prints only where it is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-bootstrap-'));
    const file = join(dir, 'admin-password');
    const out = capture(false);
    announceBootstrapPassword(PASSWORD, { stdout: out.stdout, file });
    expect(out.text()).not.toContain(PASSWORD);
    expect(out.text()).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe(`${PASSWORD}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never overwrites an existing file, nor prints the password instead', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-bootstrap-'));
    const file = join(dir, 'admin-password');
    writeFileSync(file, 'someone else’s\n');
    const out = capture(false);
    announceBootstrapPassword(PASSWORD, { stdout: out.stdout, file });
    expect(readFileSync(file, 'utf8')).toBe('someone else’s\n');
    expect(out.text()).not.toContain(PASSWORD);
    expect(out.text()).toMatch(
      /could not be written to .*admin-password \(EEXIST\).*gatehouse user set-password admin/s,
    );
  });
});
