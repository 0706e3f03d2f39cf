// The reaper's watcher (test/support/reaper.ts): reads `add <target>` and `remove <target>` lines
// from the test process, where a target is a pid or a negative process group id. Its stdin ends
// when the test process is gone, however it went (even SIGKILL, which runs no teardown): every
// target still registered then outlived it, and is killed.
import { createInterface } from 'node:readline';

const registered = new Set();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [verb, target] = line.split(' ');
  if (verb === 'add') registered.add(Number(target));
  else if (verb === 'remove') registered.delete(Number(target));
});
lines.on('close', () => {
  for (const target of registered) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});
