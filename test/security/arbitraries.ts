/**
 * fast-check arbitraries for hostile input: strings with NUL bytes, lone surrogates, control and
 * bidirectional characters, look-alikes of real usernames; JSON texts with duplicate keys, deep
 * nesting and prototype-pollution keys; invalid UTF-8; cookie and header values.
 */
import fc from 'fast-check';

/** Strings an attacker would try, beside whatever fast-check generates. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'ann\u0000',
  '\u0000ann',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDC00y\uD800',
  '\uFEFF',
  '\u202Eann',
  'ann\u200B',
  'ＡＮＮ',
  'İ',
  'ı',
  'ß',
  'ǅ',
  '\r\n',
  '\t',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u2028\u2029',
  '%00',
  '%s%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  '${7*7}',
  '{{7*7}}',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '\\',
  '"',
  '</script><script>alert(1)</script>',
  '../../../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'true',
  '0',
  '-1',
  '1e400',
  '😀',
  '👨‍👩‍👧‍👦',
  'é'.normalize('NFD'),
  'a'.repeat(199),
  'a'.repeat(200),
  'a'.repeat(201),
  'p'.repeat(4096),
  'p'.repeat(4097),
];

/** Any string, including lone surrogates (unit 'binary') and NUL. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 300 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 8 }))
      .map(([a, b]) => a + b),
  },
);

/** Usernames near the real ones: case, width, invisible and NUL variants. */
export function usernameVariants(names: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...names),
    fc.constantFrom(...names).map((name) => name.toUpperCase()),
    fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('\u0000', '\u200B', ' ', '\uD800', '\t', '%00', 'İ'))
      .map(([name, suffix]) => name + suffix),
    hostileString,
  );
}

/** Any JSON value, of any type, unicode strings included. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });

/** A value of the wrong type for a string field most of the time. */
export const wrongTypedValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyJson.filter((value) => typeof value !== 'string') },
  { weight: 1, arbitrary: hostileString },
);

const JSON_LIMIT = 16 * 1024;

/** Arrays nested `depth` deep, balanced (valid JSON) or not. */
function nested(depth: number, balanced: boolean, open = '[', close = ']'): string {
  return open.repeat(depth) + (balanced ? close.repeat(depth) : '');
}

/** Deeply nested JSON texts that all fit in the 16 KiB limit. */
export const deepJsonText: fc.Arbitrary<string> = fc.oneof(
  // 8,192 levels of [] is exactly 16 KiB.
  fc.integer({ min: 1, max: JSON_LIMIT / 2 }).map((depth) => nested(depth, true)),
  // 10,000 opening brackets (within the limit, never closed): malformed.
  fc.integer({ min: 1, max: 10_000 }).map((depth) => nested(depth, false)),
  fc
    .integer({ min: 1, max: 2_700 })
    .map((depth) => `${nested(depth, false, '{"a":', '')}1${'}'.repeat(depth)}`),
  fc
    .tuple(
      fc.constantFrom('username', 'password', 'nonce', 'old_password'),
      fc.integer({ min: 1, max: 8_000 }),
    )
    .map(([field, depth]) => `{"${field}":${nested(depth, true)}}`),
  fc
    .integer({ min: 1, max: 5_000 })
    .map((depth) => `{"x":${nested(depth, true)},"username":"a","password":""}`),
);

/** Keys an attacker uses for prototype pollution, beside the endpoints' own fields. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'toString'];

/**
 * A JSON object text written by hand, so it may repeat keys (last wins in JSON.parse) and use
 * `__proto__` as a plain key, as an attacker's raw body would.
 */
export function rawObjectText(fields: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...fields, ...POLLUTION_KEYS), fc.string({ maxLength: 10 }));
  const value = fc.oneof(
    anyJson,
    hostileString,
    fc.dictionary(fc.constantFrom(...fields, ...POLLUTION_KEYS, 'polluted', 'isAdmin'), anyJson, {
      maxKeys: 4,
    }),
  );
  return fc
    .array(fc.tuple(key, value), { maxLength: 8 })
    .chain((entries) =>
      // Repeat some entries with other values: duplicate keys.
      fc
        .subarray(entries)
        .chain((again) =>
          fc.tuple(
            fc.constant(entries),
            fc.array(value, { minLength: again.length, maxLength: again.length }),
            fc.constant(again),
          ),
        ),
    )
    .map(([entries, values, again]) => {
      const all = [...entries, ...again.map(([k], index) => [k, values[index]] as [string, unknown])];
      return `{${all.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
    });
}

/** Strings with escape sequences JSON.stringify would not write: \u0000, lone surrogates. */
export const escapedJsonString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\\u0000',
        '\\ud800',
        '\\udfff',
        '\\ud83d\\ude00',
        '\\u202e',
        '\\uffff',
        '\\ufeff',
        '\\/',
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 4 }).map((text) => JSON.stringify(text).slice(1, -1)),
    ),
    { maxLength: 8 },
  )
  .map((parts) => `"${parts.join('')}"`);

/** Bytes that are not valid UTF-8: lone continuation bytes, overlong forms, UTF-16 surrogates. */
export const INVALID_UTF8_SEQUENCES: readonly number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
];

/** A JSON object whose string values carry invalid UTF-8 bytes. */
export function invalidUtf8Json(fields: readonly string[]): fc.Arbitrary<Uint8Array> {
  return fc
    .tuple(
      fc.constantFrom(...fields),
      fc.constantFrom(...INVALID_UTF8_SEQUENCES),
      fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
    )
    .map(([field, bad, text]) =>
      Buffer.concat([
        Buffer.from(`{"${field}":"${text.replace(/["\\]/g, '')}`),
        Buffer.from(bad),
        Buffer.from('"}'),
      ]),
    );
}

/** Content types other than JSON, and JSON spelt oddly. */
export const contentType: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    'application/json',
    'application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=utf-16',
    'application/json;',
    'Application/Json ; charset=UTF-8',
    'application/jsonx',
    'application/json-patch+json',
    'application/ld+json',
    'application/problem+json',
    'application/merge-patch+json',
    'text/json',
    'text/html',
    'application/xml',
    'application/octet-stream',
    '*/*',
    'application/*',
    'json',
    ';',
    '',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
);

/** Bytes a header value may carry on the wire (node:http refuses CR, LF and NUL itself). */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\t',
    'null',
    'https://evil.example',
    'cross-site',
    '1.1.1.1, 2.2.2.2',
    'x'.repeat(4000),
  ),
);

/** A cookie name or value: the RFC 6265 cookie-octet range and the bytes browsers send anyway. */
export const cookieOctets: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.constantFrom(' ', '"', ',', ';', '=', '\t', '\u00ff', '\u0080'),
  ),
  maxLength: 50,
});
