/**
 * The hexagon's rules, checked by a tool rather than by memory (issue 30, item 6; docs/architecture.md,
 * "Dependency rules"). `npm run check:architecture` runs them over src/; `npm run check` includes it.
 * test/unit/architecture-rules.test.ts shows each rule failing on a violating tree and passing on a clean one.
 *
 * The wiring room is src/boot, with the two process entries that only call it (src/main.ts,
 * src/start.cts).
 */

/** The one place that builds the object graph: container, configuration, facade, entry points. */
const WIRING_ROOM = '^src/boot/|^src/main\\.ts$|^src/start\\.cts$';

/** Inversify and its parts (`@inversifyjs/*`), wherever the resolver finds them. */
const INVERSIFY = '(^|/)node_modules/(inversify|@inversifyjs/[^/]+|reflect-metadata)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'No import cycle, type-only imports included: a cycle of types still ties two files into one ' +
        '(issue 30 found login-events.ts <-> session-ending.ts). Move what both need to where both may import it.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-only-domain',
      severity: 'error',
      comment:
        "The domain is pure TypeScript: it imports its own files and Node's standard library, no package " +
        '(koa, fastify, pg, PGlite, ioredis, inversify, zod, openid-client, ...) and nothing outside src/domain.',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'application-imports-only-domain-and-application',
      severity: 'error',
      comment:
        'Use cases import the domain and each other, never an adapter, the wiring room or the command, and ' +
        "no package: what they need from outside comes in through a domain port. Node's standard library is allowed.",
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|application)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-not-to-wiring-room',
      severity: 'error',
      comment:
        'An adapter is plugged in by the wiring room, never the other way round: it takes plain options and ' +
        'ports, not the container, its tokens, the configuration schema or the facade. The package\'s ' +
        'framework entries (src/guards, one-line re-exports of the skins) are held to the same rule.',
      from: { path: '^src/(adapters|guards)/' },
      to: { path: WIRING_ROOM },
    },
    {
      name: 'command-not-to-adapters',
      severity: 'error',
      comment:
        'The `gatehouse` command takes its use cases and probes from the wiring room, so it reaches every ' +
        'store the service uses; it imports no adapter (no SQL, no OpenID, no Redis) itself.',
      from: { path: '^src/cli/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'inversify-only-in-wiring-room',
      severity: 'error',
      comment:
        'Only the wiring room knows the container: domain and application classes take plain constructor ' +
        'arguments, and the command and the facade hand out use cases, never the container.',
      from: { path: '^src/', pathNot: WIRING_ROOM },
      to: { path: INVERSIFY },
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment:
        'Every import resolves; an import the tool cannot follow is one no rule above can check.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from an adapter ties the domain to it all the same.
    tsPreCompilationDeps: true,
    // Resolve packages as Node does (`exports` first): inversify, for one, has no `main` field.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
