// Module customization hooks (node:module register) that append every module URL the program
// resolves to the file named by MODULE_LOG, one a line: a test reads which modules a run loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(process.env.MODULE_LOG, `${result.url}\n`);
  return result;
}
