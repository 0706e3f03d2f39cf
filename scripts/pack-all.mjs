// `npm run pack:all`: the three npm tarballs into packs/ (git-ignored).
// - gatehouse: this package as package.json's `files` list says (compiled code, migrations, bin,
//   README): `npm pack` of the repository after `npm run build`.
// - gatehouse-testing and gatehouse-client: compiled from their folders under src/ by their own
//   tsconfig.json (only the files they import are emitted), with their own package.json, so no
//   dependency of the service's comes along (docs/architecture.md, "Packages").
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packs = join(root, 'packs');
const build = join(packs, '.build');
const run = (command, args, cwd = root) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const tsc = (project) =>
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project]);

rmSync(packs, { recursive: true, force: true });
mkdirSync(build, { recursive: true });

const made = [];
const pack = (cwd) => {
  const name = run('npm', ['pack', '--silent', '--pack-destination', packs], cwd).trim().split('\n').at(-1);
  made.push(join(packs, name));
};

// A fresh build: files of sources that were removed must not linger in dist/ and ship.
rmSync(join(root, 'dist'), { recursive: true, force: true });
tsc('tsconfig.build.json');
pack(root);

for (const [folder, name] of [
  ['src/testing', 'gatehouse-testing'],
  ['src/client', 'gatehouse-client'],
]) {
  const out = join(build, name);
  tsc(join(folder, 'tsconfig.json'));
  cpSync(join(root, folder, 'package.json'), join(out, 'package.json'));
  const readme = join(root, folder, 'README.md');
  if (existsSync(readme)) cpSync(readme, join(out, 'README.md'));
  const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'));
  if (manifest.dependencies && Object.keys(manifest.dependencies).length > 0)
    throw new Error(`${name} must have no runtime dependencies`);
  pack(out);
}

rmSync(build, { recursive: true, force: true });
for (const file of made) process.stdout.write(`${file}\n`);
