import { planAudit } from './audit-command.js';
import { parse, quoted, refusePasswordArgument, unknownSubcommand } from './command-line.js';
import type { Plan } from './command-plan.js';
import { planImport } from './import-command.js';
import { planProvider } from './provider-command.js';
import { UsageError } from './usage.js';
import { planSessions, planUser } from './user-commands.js';

/** The plan of one command line; `null` for help. Throws UsageError on a malformed line. */
export function plan(argv: readonly string[]): Plan | null {
  refusePasswordArgument(argv);
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required');
    case 'help':
    case '--help':
    case '-h':
      return null;
    case 'migrate':
      parse(rest, {}, []);
      return {
        async run(context) {
          for (const name of context.applied) context.out(`applied migration ${name}`);
          if (context.applied.length === 0) context.out('the database is up to date: no migration to apply');
        },
      };
    case 'tenant': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('tenant', sub, ['add']);
      const p = parse(options, { name: { type: 'string' } }, ['ID']);
      const id = p.args[0]!;
      return {
        async run(context) {
          await context.directory.addTenant({ id, name: p.text('name') });
          context.out(`added tenant ${quoted(id)}`);
        },
      };
    }
    case 'group': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('group', sub, ['add']);
      const p = parse(options, { tenant: { type: 'string' }, name: { type: 'string' } }, ['ID']);
      const id = p.args[0]!;
      const tenantId = p.required('tenant');
      return {
        async run(context) {
          await context.directory.addGroup({ id, tenantId, name: p.text('name') });
          context.out(`added group ${quoted(id)} to tenant ${quoted(tenantId)}`);
        },
      };
    }
    case 'backend': {
      const [sub, ...options] = rest;
      if (sub !== 'add') throw unknownSubcommand('backend', sub, ['add']);
      const p = parse(options, { 'external-name': { type: 'string' } }, ['NAME']);
      const name = p.args[0]!;
      const externalName = p.required('external-name');
      return {
        async run(context) {
          await context.directory.addBackend({ name, externalName });
          context.out(`added backend ${quoted(name)} (${quoted(externalName)})`);
        },
      };
    }
    case 'user':
      return planUser(rest);
    case 'sessions':
      return planSessions(rest);
    case 'import':
      return planImport(rest);
    case 'audit':
      return planAudit(rest);
    case 'provider': {
      const providerPlan = planProvider(rest);
      return {
        ...(providerPlan.stdin.length > 0 ? { secretsFor: providerPlan.stdin } : {}),
        run: (context, _password, secrets) => providerPlan.run(context.providers, secrets),
      };
    }
    default:
      throw new UsageError(`unknown command ${quoted(command)}`);
  }
}
