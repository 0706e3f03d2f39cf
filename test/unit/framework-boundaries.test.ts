/**
 * Issue 12: each HTTP framework is imported by its own adapter only, and the domain, the
 * application and the transport-neutral HTTP core import none (nor any adapter). Type-only
 * imports count: a type from a framework ties the importer to it all the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';

const SRC = join(projectRoot(), 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(c|m)?ts$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports (static, dynamic, `declare module`). */
function specifiers(source: string): string[] {
  // Comments are not imports (a doc comment may show one as an example).
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bdeclare\s+module\s+['"]([^'"]+)['"]/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** Each framework has one file, its skin (the API's app where it serves one, and its guard). */
const FRAMEWORKS: Record<string, { packages: RegExp; home: string }> = {
  koa: { packages: /^(koa|@koa\/.*|koa-.*)$/, home: 'adapters/http/skins/koa.ts' },
  fastify: { packages: /^(fastify|@fastify\/.*|fastify-.*)$/, home: 'adapters/http/skins/fastify.ts' },
  express: { packages: /^express(\/.*)?$/, home: 'adapters/http/skins/express.ts' },
};
const SKINS = 'adapters/http/skins/';

const imports = sourceFiles(SRC).map((path) => ({
  file: relative(SRC, path).split('\\').join('/'),
  specifiers: specifiers(readFileSync(path, 'utf8')),
}));

describe('framework boundaries', () => {
  it('reads the sources (the check is not vacuous)', () => {
    expect(imports.length).toBeGreaterThan(100);
    const koaImporters = imports.filter(({ specifiers }) => specifiers.includes('koa'));
    expect(koaImporters.length).toBeGreaterThan(0);
  });

  /**
   * gatehouse-client's Fastify plugin augments Fastify's request type (`declare module 'fastify'`
   * and an `import type`, both erased at build): the one framework reference it may hold, since it
   * loads nothing (checked below).
   */
  const typeOnlyAugmentation = (file: string, specifier: string) =>
    file === 'client/fastify.ts' && specifier === 'fastify';

  it("holds gatehouse-client's Fastify reference to types: no value import, nothing in its build", () => {
    const text = readFileSync(join(SRC, 'client/fastify.ts'), 'utf8');
    expect(text).toMatch(/^declare module 'fastify'/m);
    const valueImports = [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+['"]fastify['"]/gm)];
    expect(valueImports).toEqual([]);
  });

  for (const [name, { packages, home }] of Object.entries(FRAMEWORKS)) {
    it(`imports ${name} only in src/${home}`, () => {
      const outside = imports
        .filter(({ file }) => !file.startsWith(home))
        .flatMap(({ file, specifiers }) =>
          specifiers
            .filter((s) => packages.test(s) && !typeOnlyAugmentation(file, s))
            .map((s) => `${file}: ${s}`),
        );
      expect(outside).toEqual([]);
    });
  }

  it('keeps the domain, the application and the HTTP core free of frameworks and adapters', () => {
    const framework = (s: string) => Object.values(FRAMEWORKS).some(({ packages }) => packages.test(s));
    const offending = imports
      .filter(({ file }) => /^(domain|application|adapters\/http)\//.test(file) && !file.startsWith(SKINS))
      .flatMap(({ file, specifiers }) =>
        specifiers
          .filter(
            (s) =>
              framework(s) ||
              // The HTTP core may use its own folder but none of its skins; no layer here reaches
              // into another adapter.
              /\/(skins|adapters\/(sql|redis|openid|crypto|password))\//.test(s) ||
              (file.startsWith('domain/') && /\/(adapters|application|boot)\//.test(s)),
          )
          .map((s) => `${file}: ${s}`),
      );
    expect(offending).toEqual([]);
  });

  it('keeps gatehouse-client (src/client) free of any package and of the service: its own files and node: only', () => {
    const offending = imports
      .filter(({ file }) => file.startsWith('client/'))
      .flatMap(({ file, specifiers }) =>
        specifiers
          .filter(
            (s) => !s.startsWith('node:') && !/^\.\/[\w-]+\.js$/.test(s) && !typeOnlyAugmentation(file, s),
          )
          .map((s) => `${file}: ${s}`),
      );
    expect(imports.filter(({ file }) => file.startsWith('client/')).length).toBeGreaterThan(3);
    expect(offending).toEqual([]);
  });

  it('keeps gatehouse-testing (src/testing and what it imports) to the domain: no framework, driver or hashing', () => {
    // The files the kit's build compiles: its entries (the SSO kit, its run-time errors and the store
    // suites) and everything they import, transitively.
    const byFile = new Map(imports.map(({ file, specifiers }) => [file, specifiers]));
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of byFile.get(file) ?? []) {
        if (specifier.startsWith('.')) {
          const target = join(file, '..', specifier).split('\\').join('/').replace(/\.js$/, '.ts');
          visit(target);
        } else if (!specifier.startsWith('node:')) packages.add(specifier);
      }
    };
    visit('testing/index.ts');
    visit('testing/errors.ts');
    visit('testing/stores.ts');
    expect(seen).toContain('domain/session/session-store.port.ts');
    expect([...seen].filter((file) => !/^(testing|domain)\//.test(file))).toEqual([]);
    expect([...packages]).toEqual(['vitest']);
  });
});
