import type { ImportRecord } from '../application/admin/import-users.js';
import { parse, plural } from './command-line.js';
import type { Plan } from './command-plan.js';

/** `gatehouse import FILE.jsonl`: the file is parsed before the store opens, where the command runs. */
export function planImport(args: readonly string[]): Plan {
  const file = parse(args, {}, ['FILE.jsonl']).args[0]!;
  let records: ImportRecord[] = [];
  return {
    reads: file,
    async prepare(content) {
      const { parseImportFile } = await import('./import-file.js');
      records = parseImportFile(content);
    },
    async run(context) {
      const counts = await context.importer.execute(records);
      context.out(
        `imported ${file}: ${plural(counts.tenants, 'tenant')}, ${plural(counts.backends, 'backend')}, ` +
          `${plural(counts.groups, 'group')}, ${plural(counts.users, 'user')}`,
      );
    },
  };
}
