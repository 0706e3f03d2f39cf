/**
 * Every TypeScript snippet of the README, docs/*.md and the packages' READMEs type-checks as an
 * adopter would paste it: one file per snippet in a scratch project under `strict`, whose imports
 * of the published packages (`@gatehouse-auth/...`) resolve to this repository's sources, with no
 * hand-written declaration and no `!`. A snippet that is a fragment on purpose says so on the line
 * before its fence, with a reason: `<!-- snippet: not-checked: why -->`. A snippet that is a file
 * another snippet imports (a store and its proof) is named there: `<!-- snippet: file: name.ts -->`
 * writes it as `name.ts` beside the others, so `import ... from './name.js'` finds it.
 */
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';

const ROOT = projectRoot();
const NOT_CHECKED = /^<!-- snippet: not-checked: \S.*-->$/;
const FILE = /^<!-- snippet: file: ([a-z0-9-]+(?:\.[a-z0-9-]+)*\.ts) -->$/;

/** Where each published import resolves in this repository (package.json and src/*\/package.json exports). */
const PACKAGES: Record<string, string> = {
  '@gatehouse-auth/gatehouse': 'src/index.ts',
  '@gatehouse-auth/gatehouse/testing': 'src/testing/index.ts',
  '@gatehouse-auth/gatehouse/koa': 'src/guards/koa.ts',
  '@gatehouse-auth/gatehouse/express': 'src/guards/express.ts',
  '@gatehouse-auth/gatehouse/fastify': 'src/guards/fastify.ts',
  '@gatehouse-auth/gatehouse-testing': 'src/testing/index.ts',
  '@gatehouse-auth/gatehouse-testing/errors': 'src/testing/errors.ts',
  '@gatehouse-auth/gatehouse-testing/stores': 'src/testing/stores.ts',
  '@gatehouse-auth/gatehouse/testing/stores': 'src/testing/stores.ts',
  '@gatehouse-auth/gatehouse-testing/store-runtime': 'src/testing/store-runtime.ts',
  '@gatehouse-auth/gatehouse/testing/store-runtime': 'src/testing/store-runtime.ts',
  '@gatehouse-auth/gatehouse-client': 'src/client/index.ts',
  '@gatehouse-auth/gatehouse-client/express': 'src/client/express.ts',
  '@gatehouse-auth/gatehouse-client/fastify': 'src/client/fastify.ts',
  '@gatehouse-auth/gatehouse-client/koa': 'src/client/koa.ts',
};

interface Snippet {
  /** `README.md:72`: the document and the line of the opening fence. */
  where: string;
  code: string;
  /** The file name its marker gives it, for other snippets to import. */
  file?: string;
}

/** The ```ts and ```typescript blocks of one Markdown file, and the fragments it marks. */
function snippetsOf(file: string, text: string): { checked: Snippet[]; marked: string[] } {
  const checked: Snippet[] = [];
  const marked: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const where = `${file}:${i + 1}`;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== '```') body.push(lines[j++]!.slice(open[1]!.length));
    const marker = (lines[i - 1] ?? '').trim();
    const named = FILE.exec(marker)?.[1];
    if (NOT_CHECKED.test(marker)) marked.push(where);
    else checked.push({ where, code: body.join('\n'), ...(named ? { file: named } : {}) });
    i = j;
  }
  return { checked, marked };
}

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'src/client/README.md',
  'src/testing/README.md',
  'packaging/gatehouse/README.md',
];

describe('the TypeScript snippets of the README and docs', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-snippets-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const snippets = DOCUMENTS.flatMap((file) => {
    const { checked, marked } = snippetsOf(file, readFileSync(join(ROOT, file), 'utf8'));
    if (marked.length > 0) console.info(`[snippets] not checked, as marked: ${marked.join(', ')}`);
    return checked;
  });

  it('finds the snippets, with no `!` assertion and no hand-written declaration', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(3);
    for (const { where, code } of snippets) {
      expect(code, where).not.toMatch(/[\w)\]]!(?=[.[(;,)\s])/);
      expect(code, where).not.toMatch(/^\s*declare\s/m);
    }
  });

  it('type-checks each one under strict, importing the packages by their published names', async () => {
    mkdirSync(join(scratch, 'snippets'));
    symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'));
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'adopter', private: true, type: 'module' }),
    );
    const files = new Map<string, string>();
    snippets.forEach(({ where, code, file }, index) => {
      const name = file
        ? `snippets/${file}`
        : `snippets/s${index}-${where.replace(/[^A-Za-z0-9]+/g, '-')}.ts`;
      if (files.has(name)) throw new Error(`${where}: another snippet is already the file ${file}`);
      files.set(name, where);
      // `export {}`: a snippet without imports is still a module (top-level await, its own scope).
      writeFileSync(join(scratch, name), `${code}\nexport {};\n`);
    });
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          // As the repository compiles: the sources the snippets import are checked with them.
          noUncheckedIndexedAccess: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          types: ['node'],
          esModuleInterop: true,
          skipLibCheck: true,
          noEmit: true,
          paths: Object.fromEntries(
            Object.entries(PACKAGES).map(([specifier, path]) => [specifier, [join(ROOT, path)]]),
          ),
        },
        include: ['snippets/*.ts'],
      }),
    );
    const output = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--pretty', 'false'],
      { cwd: scratch, maxBuffer: 16 * 1024 * 1024 },
    ).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Each error told by the document line of its snippet.
    const errors = output
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const file = [...files.keys()].find((name) => line.startsWith(name));
        return file ? `${files.get(file)} (snippet ${line.slice(file.length)})` : line;
      });
    expect(errors).toEqual([]);
  }, 180_000);
});
