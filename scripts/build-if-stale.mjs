// `npm run gatehouse` (its `pregatehouse`): compiles only when dist/ is older than what it is built
// from, so a command from a checkout starts in well under a second instead of after a full tsc
// run. Built from: every file under src/, tsconfig.json and tsconfig.build.json. tsc rewrites every
// output on each build, so the entry point's time stands for the whole of dist/.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time of `path` and, for a folder, of everything below it. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const built = (() => {
  try {
    return statSync(join(root, 'dist/src/cli/main.js')).mtimeMs;
  } catch {
    return -1;
  }
})();
const sources = Math.max(
  newest(join(root, 'src')),
  newest(join(root, 'tsconfig.json')),
  newest(join(root, 'tsconfig.build.json')),
);

if (built < sources) {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
