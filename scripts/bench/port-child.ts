/**
 * A helper server of the benchmark (bare-koa.mjs, bare-fastify.mjs, otlp-sink.mjs): a node script
 * next to this file, started with `env` and nothing else inherited, that prints its port on stdout
 * once it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export async function startPortChild(
  script: string,
  env: Record<string, string>,
): Promise<{ url: string; port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, script)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) resolve(Number(text.trim()));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it listened`)));
  });
  return { url: `http://127.0.0.1:${port}`, port, child };
}
