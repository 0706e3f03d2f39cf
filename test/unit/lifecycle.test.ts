import { describe, expect, it } from 'vitest';
import { Lifecycle, type LifecycleStep } from '../../src/boot/lifecycle.js';

/** Steps that write what they did into `log`; `failing` names the step whose start throws. */
function steps(log: string[], names: string[], failing?: string): LifecycleStep[] {
  return names.map((name) => ({
    name,
    start: () => {
      if (name === failing) throw new Error(`${name} could not start`);
      log.push(`start ${name}`);
    },
    stop: () => {
      log.push(`stop ${name}`);
    },
  }));
}

describe('the lifecycle: one list of start-up and shutdown steps', () => {
  it('starts the steps in order and stops them in reverse', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle(steps(log, ['store', 'directory', 'purger']));
    await lifecycle.start();
    await lifecycle.stop();
    expect(log).toEqual([
      'start store',
      'start directory',
      'start purger',
      'stop purger',
      'stop directory',
      'stop store',
    ]);
  });

  it('stops what had started when a step fails, then reports the failure', async () => {
    const log: string[] = [];
    const lifecycle = new Lifecycle(steps(log, ['store', 'directory', 'purger'], 'directory'));
    await expect(lifecycle.start()).rejects.toThrow('directory could not start');
    // The failed step may have half-started (a listener bound, a timer set): it is stopped too.
    expect(log).toEqual(['start store', 'stop directory', 'stop store']);
  });

  it('stops each step once however often it is asked, and keeps stopping past a failed stop', async () => {
    const log: string[] = [];
    const list = steps(log, ['store', 'purger']);
    list[1] = { name: 'purger', stop: () => Promise.reject(new Error('purger would not stop')) };
    const lifecycle = new Lifecycle(list);
    await lifecycle.start();
    const first = lifecycle.stop();
    const second = lifecycle.stop();
    await expect(first).rejects.toThrow('purger would not stop');
    await expect(second).rejects.toThrow('purger would not stop');
    expect(log).toEqual(['start store', 'stop store']);
  });
});
