// `node scripts/cli-timings.mjs [ROOT ...]`: how long `gatehouse` commands take on the embedded
// database, for each Gatehouse checkout given (default: this one; each built with `npm run build`
// and with node_modules), their runs interleaved so a busy machine weighs on all alike.
// Per command: median wall time of CLI_TIMINGS_RUNS runs (default 7), and median CPU time (user +
// system, from /usr/bin/time) when it is installed; then the same with the service running on
// that DATA_DIR (`node dist/src/start.cjs`, as `npm start`). Prints a Markdown table.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const roots = (
  process.argv.length > 2 ? process.argv.slice(2) : [fileURLToPath(new URL('..', import.meta.url))]
).map((root) => resolve(root));
const RUNS = Number(process.env.CLI_TIMINGS_RUNS ?? 7);
const PASSWORD = 'a long passphrase for timing';
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** Runs `node args` in `root` with `env`; gives wall ms, CPU ms (or null) and the exit status. */
function run(root, args, env, input = '') {
  const command = TIME ? [TIME, '-f', '%U %S', process.execPath, ...args] : [process.execPath, ...args];
  const started = process.hrtime.bigint();
  const result = spawnSync(command[0], command.slice(1), { cwd: root, env, input, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  let cpu = null;
  if (TIME) {
    const [user, system] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    cpu = (user + system) * 1000;
  }
  return { wall, cpu, status: result.status, stderr: result.stderr };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Starts the service on `env`; resolves once it listens, with a stop function. */
function startService(root, env) {
  const child = spawn(process.execPath, ['dist/src/start.cjs'], {
    cwd: root,
    env: { ...env, PORT: '0', LOG_LEVEL: 'info', BOOTSTRAP_ADMIN: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolveStart, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
      if (output.includes('Gatehouse listening on')) {
        resolveStart(() => new Promise((done) => child.once('exit', done).kill('SIGTERM')));
      }
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
  });
}

const targets = roots.map((root) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-timings-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'silent',
    DATA_DIR: join(dir, 'data'),
  };
  const first = run(root, ['bin/gatehouse.js', 'migrate'], env);
  if (first.status !== 0) throw new Error(`${root}: migrate failed: ${first.stderr}`);
  return { root, dir, env, first, rows: new Map() };
});

let counter = 0;
const commands = [
  ['node -e 0', () => ['-e', '0']],
  ['gatehouse help', () => ['bin/gatehouse.js', 'help']],
  ['usage error', () => ['bin/gatehouse.js', 'group', 'add', 'g1']],
  ['tenant add', () => ['bin/gatehouse.js', 'tenant', 'add', `t${++counter}`]],
  [
    'user add --password-stdin',
    () => ['bin/gatehouse.js', 'user', 'add', `u${++counter}`, '--level', '16', '--password-stdin'],
    `${PASSWORD}\n`,
  ],
];

function measure(label, phase) {
  for (let round = 0; round < RUNS; round++) {
    for (const target of targets) {
      for (const [name, args, input] of commands) {
        const result = run(target.root, args(), target.env, input);
        const key = `${name}${phase}`;
        const row = target.rows.get(key) ?? { walls: [], cpus: [], statuses: new Set() };
        row.walls.push(result.wall);
        if (result.cpu !== null) row.cpus.push(result.cpu);
        row.statuses.add(result.status);
        target.rows.set(key, row);
      }
    }
  }
  process.stderr.write(`${label} done, load average ${loadavg()[0].toFixed(1)}\n`);
}

const load = [loadavg()[0]];
measure('service stopped', '');
for (const target of targets) target.stop = await startService(target.root, target.env);
measure('service running', ', service running');
for (const target of targets) await target.stop();
load.push(loadavg()[0]);

console.log(
  `${RUNS} runs each, interleaved; load average ${load.map((value) => value.toFixed(1)).join(' to ')}; ${process.version}\n`,
);
console.log(`| command | ${targets.map((target) => `${target.root}: wall ms (CPU ms), exit`).join(' | ')} |`);
console.log(`|---|${targets.map(() => '---').join('|')}|`);
console.log(
  `| first \`migrate\` on a fresh DATA_DIR (one run) | ${targets.map((t) => `${t.first.wall.toFixed(0)}${t.first.cpu === null ? '' : ` (${t.first.cpu.toFixed(0)})`}, 0`).join(' | ')} |`,
);
for (const key of targets[0].rows.keys()) {
  const cells = targets.map((target) => {
    const row = target.rows.get(key);
    const cpu = row.cpus.length ? ` (${median(row.cpus).toFixed(0)})` : '';
    return `${median(row.walls).toFixed(0)}${cpu}, ${[...row.statuses].join('/')}`;
  });
  console.log(`| ${key} | ${cells.join(' | ')} |`);
}
for (const target of targets) rmSync(target.dir, { recursive: true, force: true });
