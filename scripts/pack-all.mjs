// `npm run pack:all`: the three npm tarballs into packs/ (git-ignored), under the project's npm
// scope (package.json `name`), so that no unrelated public package of the same name can be
// installed in their place.
// - @gatehouse-auth/gatehouse: the service, as package.json's `files` list says (compiled code,
//   migrations, bin, the common-password list), compiled afresh into a staging folder, with its
//   own README (packaging/gatehouse/README.md) and a manifest without the checkout's
//   build scripts.
// - @gatehouse-auth/gatehouse-testing and -client: compiled from their folders under src/ by their
//   own tsconfig.json (only the files they import are emitted), with their own package.json and
//   README, so no dependency of the service's comes along (docs/architecture.md, "Packages").
// No source maps are shipped, so none is compiled: a `//# sourceMappingURL` comment would point at
// a file that is not in the tarball.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packs = join(root, 'packs');
const build = join(packs, '.build');
const run = (command, args, cwd = root) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const tsc = (...args) => run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args]);
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

rmSync(packs, { recursive: true, force: true });
mkdirSync(build, { recursive: true });

const made = [];
const pack = (cwd) => {
  const name = run('npm', ['pack', '--silent', '--pack-destination', packs], cwd).trim().split('\n').at(-1);
  made.push(join(packs, name));
};

// The service: a fresh build (no file of a removed source lingers), outside the checkout's dist/.
const service = join(build, 'gatehouse');
tsc(
  '-p',
  'tsconfig.build.json',
  '--outDir',
  join(service, 'dist'),
  '--sourceMap',
  'false',
  '--declarationMap',
  'false',
);
const manifest = readJson(join(root, 'package.json'));
// `start` stays: `gatehouse serve` reads its node flags and entry. The rest build from sources.
manifest.scripts = { start: manifest.scripts.start };
delete manifest.devDependencies;
writeFileSync(join(service, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const path of ['migrations', 'bin', 'src/adapters/password/common-passwords.txt'])
  cpSync(join(root, path), join(service, path), { recursive: true });
cpSync(join(root, 'packaging/gatehouse/README.md'), join(service, 'README.md'));
pack(service);

for (const [folder, name] of [
  ['src/testing', 'gatehouse-testing'],
  ['src/client', 'gatehouse-client'],
]) {
  const out = join(build, name);
  tsc('-p', join(folder, 'tsconfig.json'));
  cpSync(join(root, folder, 'package.json'), join(out, 'package.json'));
  cpSync(join(root, folder, 'README.md'), join(out, 'README.md'));
  const own = readJson(join(out, 'package.json'));
  if (own.dependencies && Object.keys(own.dependencies).length > 0)
    throw new Error(`${name} must have no runtime dependencies`);
  pack(out);
}

rmSync(build, { recursive: true, force: true });
for (const file of made) process.stdout.write(`${file}\n`);
