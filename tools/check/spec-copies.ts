import { readdirSync, readFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { join } from 'node:path';
import { projectRoot, readContracts } from '../../src/contract/project.js';
import { deref, isObject, type Json, loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { leaseBlock } from '../../src/http/shared-rate-limit.js';
import { commentRuns } from './code-comments.js';
import { createValueFinder } from './spec-locations.js';

/** The two contracts, by their name in `redocly.yaml`. */
export interface Specs {
  main: OpenApiDocument;
  account: OpenApiDocument;
}

/**
 * A place in prose (a description, an example, the README or a page of `docs/`) that restates something the spec
 * says elsewhere: a limit, an enum, a bound. The text stays readable as prose, and this says
 * what each number in it must be, read from the spec, so a change to `x-limits` or a schema
 * cannot leave the copy behind.
 */
interface ProseCopy {
  /** Files to look in, relative to the project root. */
  files: string[];
  /** What it restates, for the message: `x-limits.rateLimit of openapi.yaml`. */
  of: string;
  /** Finds the copy; each capture group is one restated value. */
  find: RegExp;
  want: (specs: Specs) => Array<string | number>;
}

/** A value of the spec itself (an example) that must agree with another place of the spec. */
interface ValueCopy {
  spec: keyof Specs;
  /** JSON pointer of the copy. */
  at: string;
  of: string;
  /** The problem, or undefined when the value agrees. */
  problem: (value: Json | undefined, specs: Specs) => string | undefined;
  /** The one value the copy should hold, when there is one: `npm run fix` writes it. Without it the fix is a judgement. */
  want?: (specs: Specs) => number;
}

const MAIN = 'openapi/openapi.yaml';
const ACCOUNT = 'openapi/account.yaml';
const README = 'README.md';
/** The pages of `docs/` that restate the specs, each named where its copies are listed. */
const DECISIONS = 'docs/what-the-contract-decides.md';
const EDITING = 'docs/editing-the-contract.md';
const SERVER = 'docs/server.md';
const SCALING = 'docs/scaling-out.md';
const WEB_APP = 'docs/web-application.md';
const CONTRACT_SUITE = 'docs/contract-suite.md';
const LIMITS = 'docs/limits.md';
/** A comment that works an example with the public quota. */
const SHARED_RATE_LIMIT = 'src/http/shared-rate-limit.ts';
/** The pages' forms: the bounds their inputs hold a user to before a request is sent, and the hints beside them. */
const PAGES = 'src/pages/html.ts';

/** A value of a spec by JSON pointer (`$ref`s followed on the way), or undefined. */
function at(spec: OpenApiDocument, pointer: string): Json | undefined {
  let node: Json | undefined = spec;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (isObject(node) && typeof node['$ref'] === 'string') node = deref(spec, node);
    node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
  }
  return node;
}

function number(spec: OpenApiDocument, pointer: string): number {
  const value = at(spec, pointer);
  if (typeof value !== 'number') throw new Error(`the spec has no number at ${pointer}; update tools/check/spec-copies.ts`);
  return value;
}

function list(spec: OpenApiDocument, pointer: string): Json[] {
  const value = at(spec, pointer);
  if (!Array.isArray(value)) throw new Error(`the spec has no list at ${pointer}; update tools/check/spec-copies.ts`);
  return value;
}

const limit = (pointer: string) => (specs: Specs) => number(specs.main, `#/x-limits/${pointer}`);
const accountLimit = (pointer: string) => (specs: Specs) => number(specs.account, `#/x-limits/${pointer}`);
const kib = (bytes: number) => bytes / 1024;
const expiries = (specs: Specs) => list(specs.account, '#/components/schemas/ExpiresInDays/enum') as number[];

/** A contract's body limit as its 413 problem and examples say it: in KiB in the title-like wording, in bytes in the detail. */
function bodyLimitCopies(file: string, name: string, maxBodyBytes: (specs: Specs) => number): ProseCopy[] {
  const of = `x-limits.maxBodyBytes of ${name}`;
  return [
    { files: [file], of, find: /(?:The request body is larger than|summary: Body over) (\d+) KiB/g, want: (specs) => [kib(maxBodyBytes(specs))] },
    { files: [file], of, find: /The request body exceeds (\d+) bytes/g, want: (specs) => [maxBodyBytes(specs)] },
  ];
}

/**
 * The bounds an input of the pages' forms (the one whose attributes start with `input`) holds a user to, in its
 * `minlength` and `maxlength`, as the account API's schema at `schema` (under components.schemas) has them.
 */
function formBounds(input: string, schema: string, keywords: Array<'minLength' | 'maxLength'>): ProseCopy {
  const attributes = keywords.map((keyword) => `${keyword.toLowerCase()}="(\\d+)"`).join(' ');
  return {
    files: [PAGES],
    of: `components.schemas.${schema.replaceAll('/properties/', '.')} of account.yaml`,
    find: new RegExp(`<input ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${attributes}(?=[ >\\n])`, 'g'),
    want: ({ account }) => keywords.map((keyword) => number(account, `#/components/schemas/${schema}/${keyword}`)),
  };
}

const PROSE_COPIES: ProseCopy[] = [
  // The public API: its "specified vs decided" table (in the spec and, copied, in docs/what-the-contract-decides.md), its description, examples.
  {
    files: [MAIN, DECISIONS, LIMITS],
    of: 'x-limits.maxBodyBytes of openapi.yaml',
    find: /Request bodies up to (\d+) KiB/g,
    want: (specs) => [kib(limit('maxBodyBytes')(specs))],
  },
  {
    files: [MAIN, DECISIONS, EDITING],
    of: 'x-limits.rateLimit of openapi.yaml',
    find: /(\d+) requests per key per (\d+) s window/g,
    want: (specs) => [limit('rateLimit/requests')(specs), limit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [MAIN, DECISIONS],
    of: 'components.schemas.Limit of openapi.yaml',
    find: /`limit` \((\d+) to (\d+), default (\d+)\)/g,
    want: ({ main }) => ['minimum', 'maximum', 'default'].map((keyword) => number(main, `#/components/schemas/Limit/${keyword}`)),
  },
  {
    files: [MAIN, DECISIONS],
    of: 'components.schemas.Sort of openapi.yaml',
    find: /Enum (`[^|]*`), optional, default `(\w+)`/g,
    want: ({ main }) => [
      list(main, '#/components/schemas/Sort/enum')
        .map((value) => `\`${String(value)}\``)
        .join(' / '),
      String(at(main, '#/components/schemas/Sort/default')),
    ],
  },
  {
    files: [MAIN, DECISIONS],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /expire \((\d+) to (\d+) days\)/g,
    want: (specs) => [Math.min(...expiries(specs)), Math.max(...expiries(specs))],
  },
  {
    files: [MAIN],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /an expiry its user chose \((\d+) to (\d+) days\)/g,
    want: (specs) => [Math.min(...expiries(specs)), Math.max(...expiries(specs))],
  },
  {
    files: [MAIN],
    of: 'x-limits.headersTimeoutSeconds and requestTimeoutSeconds of openapi.yaml',
    find: /\((\d+) s for the headers, (\d+) s in all\)/g,
    want: (specs) => [limit('headersTimeoutSeconds')(specs), limit('requestTimeoutSeconds')(specs)],
  },
  {
    files: [MAIN, ACCOUNT, LIMITS],
    of: "Node's http.maxHeaderSize (the server does not change it)",
    find: /request headers\s+over (\d+) KiB/g,
    want: () => [kib(maxHeaderSize)],
  },
  ...bodyLimitCopies(MAIN, 'openapi.yaml', limit('maxBodyBytes')),
  {
    files: [MAIN],
    of: 'x-limits.rateLimit of openapi.yaml',
    find: /has used its (\d+) requests for the current (\d+)-second window/g,
    want: (specs) => [limit('rateLimit/requests')(specs), limit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [MAIN],
    of: 'components.schemas.Sort of openapi.yaml',
    find: /['"]must be one of: ([^'"]*)['"]/g,
    want: ({ main }) => [list(main, '#/components/schemas/Sort/enum').join(', ')],
  },
  // The account API's description and examples.
  ...bodyLimitCopies(ACCOUNT, 'account.yaml', accountLimit('maxBodyBytes')),
  {
    files: [ACCOUNT],
    of: 'x-limits.rateLimit of account.yaml',
    find: /has sent (\d+) requests in the current (\d+)-second window/g,
    want: (specs) => [accountLimit('rateLimit/requests')(specs), accountLimit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [ACCOUNT, WEB_APP, LIMITS],
    of: 'x-limits.signUp of account.yaml',
    find: /Sign-ups(?:\*\*)? are limited per client address(?: \(`x-limits.signUp`\))?: (\d+), each\s+counted before the name is looked up, whether it makes an account or meets\s+a taken name; past them the address waits (\d+) minutes after its latest/g,
    want: (specs) => [accountLimit('signUp/perClient')(specs), accountLimit('signUp/windowSeconds')(specs) / 60],
  },
  {
    files: [ACCOUNT, WEB_APP],
    of: 'x-limits.password.minGuessesLog10 of account.yaml',
    find: /fewer than 10\^(\d+)\s+guesses/g,
    want: (specs) => [accountLimit('password/minGuessesLog10')(specs)],
  },
  {
    files: [ACCOUNT],
    of: 'x-limits.signUp of account.yaml',
    find: /signed up or tried a taken name (\d+) times\. Try again in (\d+) minutes/g,
    want: (specs) => [accountLimit('signUp/perClient')(specs), accountLimit('signUp/windowSeconds')(specs) / 60],
  },
  {
    files: [ACCOUNT],
    of: 'x-limits.keys.activePerUser of account.yaml',
    find: /You have (\d+) active API keys/g,
    want: (specs) => [accountLimit('keys/activePerUser')(specs)],
  },
  {
    files: [ACCOUNT, WEB_APP],
    of: 'components.schemas.SignUpRequest.password of account.yaml',
    find: /(?:Passwords(?:\*\*)? are|description:) (\d+) to (\d+) characters/g,
    want: ({ account }) => ['minLength', 'maxLength'].map((keyword) => number(account, `#/components/schemas/SignUpRequest/properties/password/${keyword}`)),
  },
  {
    // SignUpRequest.password's own description, and ChangePasswordRequest.newPassword's, which restates sign-up's rule.
    files: [ACCOUNT],
    of: 'components.schemas.SignUpRequest.password of account.yaml',
    find: /(?:(?<=^ +)|\(`SignUpRequest\.password`\): )(\d+) to (\d+) characters, (?:compared|stored)/gm,
    want: ({ account }) => ['minLength', 'maxLength'].map((keyword) => number(account, `#/components/schemas/SignUpRequest/properties/password/${keyword}`)),
  },
  {
    files: [README, 'docs/installing-and-first-run.md'],
    of: 'components.schemas.SignUpRequest.password of account.yaml',
    find: /password of at least (\d+) characters/g,
    want: ({ account }) => [number(account, '#/components/schemas/SignUpRequest/properties/password/minLength')],
  },
  {
    files: [ACCOUNT],
    of: 'x-limits.session of account.yaml',
    find: /after (\d+) minutes without a request \(idle expiry\), and\s+- (\d+) hours after sign-in/g,
    want: (specs) => [accountLimit('session/idleSeconds')(specs) / 60, accountLimit('session/absoluteSeconds')(specs) / 3600],
  },
  {
    files: [ACCOUNT],
    of: 'x-limits.session.absoluteSeconds of account.yaml',
    find: /session=(?:<token>|[A-Za-z0-9_-]{43}); Path=\/; Max-Age=(\d+)/g,
    want: (specs) => [accountLimit('session/absoluteSeconds')(specs)],
  },
  {
    files: [ACCOUNT],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /presets \(([\d, ]+) or (\d+)\s+days; (\d+) by default\)/g,
    want: (specs) => [
      expiries(specs).slice(0, -1).join(', '),
      String(expiries(specs).at(-1)),
      number(specs.account, '#/components/schemas/ExpiresInDays/default'),
    ],
  },
  {
    files: [ACCOUNT],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /['"]must be one of: ([^'"]*)['"]/g,
    want: (specs) => [expiries(specs).join(', ')],
  },
  // The pages' forms (src/pages/html.ts): an input's minlength and maxlength are the bounds of the field it fills.
  formBounds('id="name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" required', 'SignInRequest/properties/name', ['maxLength']),
  formBounds('id="password" name="password" type="password" autocomplete="current-password" required', 'SignInRequest/properties/password', ['maxLength']),
  formBounds('id="name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" required', 'UserName', ['minLength', 'maxLength']),
  formBounds('id="password" name="password" type="password" autocomplete="new-password" required', 'SignUpRequest/properties/password', [
    'minLength',
    'maxLength',
  ]),
  formBounds('id="key-name" name="name" required', 'KeyName', ['maxLength']),
  formBounds(
    'id="current-password" name="currentPassword" type="password" autocomplete="current-password" required',
    'ChangePasswordRequest/properties/currentPassword',
    ['maxLength'],
  ),
  formBounds('id="new-password" name="newPassword" type="password" autocomplete="new-password" required', 'ChangePasswordRequest/properties/newPassword', [
    'minLength',
    'maxLength',
  ]),
  {
    files: [PAGES],
    of: 'components.schemas.UserName of account.yaml',
    find: /id="name-hint">(\d+) to (\d+) lower-case letters/g,
    want: ({ account }) => ['minLength', 'maxLength'].map((keyword) => number(account, `#/components/schemas/UserName/${keyword}`)),
  },
  {
    files: [PAGES],
    of: 'components.schemas.SignUpRequest.password of account.yaml',
    find: /id="password-hint">At least (\d+) characters/g,
    want: ({ account }) => [number(account, '#/components/schemas/SignUpRequest/properties/password/minLength')],
  },
  {
    files: [PAGES],
    of: 'components.schemas.ChangePasswordRequest.newPassword of account.yaml',
    find: /id="new-password-hint">At least (\d+) characters/g,
    want: ({ account }) => [number(account, '#/components/schemas/ChangePasswordRequest/properties/newPassword/minLength')],
  },
  // The README's and docs/'s prose about the limits: the variables (docs/server.md), scaling out, the contract suite, the web application, the scripts.
  {
    files: [SERVER, LIMITS],
    of: 'x-limits.rateLimit of openapi.yaml',
    find: /the spec's `x-limits` \((\d+) per (\d+) s\)/g,
    want: (specs) => [limit('rateLimit/requests')(specs), limit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [SERVER],
    of: 'x-limits.maxBodyBytes of openapi.yaml',
    find: /the spec's `x-limits` \((\d+)\) \| largest request body/g,
    want: (specs) => [limit('maxBodyBytes')(specs)],
  },
  {
    files: [SERVER, LIMITS],
    of: 'x-limits.failedAuthentication of openapi.yaml',
    find: /the spec's `x-limits` \((\d+) failures per (\d+) s\)/g,
    want: (specs) => ['perAddress', 'windowSeconds'].map((key) => limit(`failedAuthentication/${key}`)(specs)),
  },
  {
    files: [SERVER, LIMITS],
    of: 'x-limits.headersTimeoutSeconds and requestTimeoutSeconds of openapi.yaml',
    find: /the spec's `x-limits` \((\d+) s, (\d+) s\)/g,
    want: (specs) => [limit('headersTimeoutSeconds')(specs), limit('requestTimeoutSeconds')(specs)],
  },
  {
    files: [SCALING],
    of: 'x-limits.rateLimit.requests of openapi.yaml and leaseBlock in src/http/shared-rate-limit.ts',
    find: /block = 2% of the quota: (\d+) of (\d+),/g,
    want: (specs) => [leaseBlock(limit('rateLimit/requests')(specs)), limit('rateLimit/requests')(specs)],
  },
  // Comments in src/ that restate the spec (every comment there is also searched for the wordings above).
  {
    files: [SHARED_RATE_LIMIT],
    of: 'x-limits.rateLimit of openapi.yaml and leaseBlock in src/http/shared-rate-limit.ts',
    find: /\((\d+) requests per (\d+) s: blocks of (\d+)\)/g,
    want: (specs) => [limit('rateLimit/requests')(specs), limit('rateLimit/windowSeconds')(specs), leaseBlock(limit('rateLimit/requests')(specs))],
  },
  {
    files: ['src/mock/stateful/identity.ts'],
    of: 'components.schemas.UserName of account.yaml',
    find: /\(`UserName` takes (\d+) to (\d+)\)/g,
    want: ({ account }) => ['minLength', 'maxLength'].map((keyword) => number(account, `#/components/schemas/UserName/${keyword}`)),
  },
  {
    files: [CONTRACT_SUITE],
    of: 'x-limits.rateLimit of openapi.yaml',
    find: /well inside the quota of (\d+) requests per (\d+) s/g,
    want: (specs) => [limit('rateLimit/requests')(specs), limit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [ACCOUNT, WEB_APP, LIMITS],
    of: 'x-limits.signIn of account.yaml',
    find: /\((\d+) per\s+account, (\d+) per\s+client\s+address, (\d+) per\s+device\)/g,
    want: (specs) => ['failuresPerAccount', 'failuresPerClient', 'failuresPerDevice'].map((key) => accountLimit(`signIn/${key}`)(specs)),
  },
  {
    files: [ACCOUNT, WEB_APP, LIMITS],
    of: 'x-limits.signIn of account.yaml',
    find: /waits (\d+) minutes? after the latest, doubled each time, at most (\d+) minutes, and\s+a count is forgotten (\d+) minutes after its latest attempt/g,
    want: (specs) => ['backoffSeconds', 'maxBackoffSeconds', 'windowSeconds'].map((key) => accountLimit(`signIn/${key}`)(specs) / 60),
  },
  {
    files: [ACCOUNT, WEB_APP],
    of: 'x-limits.signIn.deviceSeconds of account.yaml',
    find: /kept for (\d+) days/g,
    want: (specs) => [accountLimit('signIn/deviceSeconds')(specs) / 86_400],
  },
  {
    files: [ACCOUNT],
    of: 'x-limits.signIn.deviceSeconds of account.yaml',
    find: /device=<user id>\.<nonce>\.<signature>; Path=\/; Max-Age=(\d+)/g,
    want: (specs) => [accountLimit('signIn/deviceSeconds')(specs)],
  },
  {
    files: [WEB_APP],
    of: 'x-limits.session of account.yaml',
    find: /A session ends after (\d+) idle\s+minutes, (\d+) hours after sign-in/g,
    want: (specs) => [accountLimit('session/idleSeconds')(specs) / 60, accountLimit('session/absoluteSeconds')(specs) / 3600],
  },
  {
    files: [WEB_APP, LIMITS],
    of: 'x-limits.keys.activePerUser of account.yaml',
    find: /(?:At most (\d+) active keys per user|(\d+) active keys\)\.)/g,
    want: (specs) => [accountLimit('keys/activePerUser')(specs)],
  },
  {
    files: [WEB_APP, LIMITS],
    of: 'x-limits.maxBodyBytes and rateLimit of account.yaml',
    find: /\(body (\d+) KiB, (\d+) requests per (\d+) s per live session,/g,
    want: (specs) => [kib(accountLimit('maxBodyBytes')(specs)), accountLimit('rateLimit/requests')(specs), accountLimit('rateLimit/windowSeconds')(specs)],
  },
  {
    files: [WEB_APP],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /expiry from\s+([\d, ]+) or (\d+) days, (\d+) by default/g,
    want: (specs) => [
      expiries(specs).slice(0, -1).join(', '),
      String(expiries(specs).at(-1)),
      number(specs.account, '#/components/schemas/ExpiresInDays/default'),
    ],
  },
  {
    files: [README],
    of: 'components.schemas.ExpiresInDays of account.yaml',
    find: /from the same presets \(([\d, ]+); default (\d+)\)/g,
    want: (specs) => [expiries(specs).join(', '), number(specs.account, '#/components/schemas/ExpiresInDays/default')],
  },
];

const VALUE_COPIES: ValueCopy[] = [
  {
    spec: 'main',
    at: '#/components/headers/RateLimit-Limit/example',
    of: 'x-limits.rateLimit.requests',
    problem: (value, specs) => (value === limit('rateLimit/requests')(specs) ? undefined : `should be ${limit('rateLimit/requests')(specs)}`),
    want: (specs) => limit('rateLimit/requests')(specs),
  },
  {
    spec: 'main',
    at: '#/components/headers/RateLimit-Remaining/example',
    of: 'x-limits.rateLimit.requests',
    problem: (value, specs) =>
      typeof value === 'number' && value < limit('rateLimit/requests')(specs) ? undefined : `should be below the quota, ${limit('rateLimit/requests')(specs)}`,
  },
  ...['#/components/headers/RateLimit-Reset/example', '#/components/headers/Retry-After/example'].map(
    (pointer): ValueCopy => ({
      spec: 'main',
      at: pointer,
      of: 'x-limits.rateLimit.windowSeconds',
      problem: (value, specs) =>
        typeof value === 'number' && value <= limit('rateLimit/windowSeconds')(specs)
          ? undefined
          : `should be at most the window, ${limit('rateLimit/windowSeconds')(specs)} s`,
    }),
  ),
  {
    spec: 'account',
    at: '#/components/headers/Retry-After/example',
    of: 'x-limits.signIn.maxBackoffSeconds',
    problem: (value, specs) =>
      typeof value === 'number' && value <= accountLimit('signIn/maxBackoffSeconds')(specs)
        ? undefined
        : `should be at most the longest wait, ${accountLimit('signIn/maxBackoffSeconds')(specs)} s`,
  },
];

/** A stale copy in prose and what it should say now: what `npm run fix` writes. */
export interface Replacement {
  file: string;
  line: number;
  /** Where `from` starts in the file as it was checked (characters), so several in one file are written from the last back. */
  index: number;
  from: string;
  to: string;
}

export interface CopiesResult {
  ok: boolean;
  /** The stale prose copies, each with its replacement (a stale example of the spec is a problem only). */
  replacements: Replacement[];
  /** One line per stale copy: `update docs/what-the-contract-decides.md:16: ...`. */
  problems: string[];
  message: string;
}

/** The TypeScript files under `folder` (relative to the project root), whose comments may restate the spec. */
function sourceFiles(folder = 'src'): string[] {
  return readdirSync(join(projectRoot, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(`${folder}/${entry.name}`) : entry.name.endsWith('.ts') ? [`${folder}/${entry.name}`] : [],
  );
}

/** Where a copy may be: a file, or the prose in it (a source file's comments, joined), with the file's place of each of its characters. */
interface Searched {
  file: string;
  /** The whole file, for line numbers. */
  text: string;
  prose: string;
  at: (index: number) => number;
}

/**
 * A TypeScript file's comments (those `keep` keeps), joined by a character no copy's pattern takes for prose (NUL),
 * each mapped back to its place in the file.
 */
function commentsOf(file: string, text: string, keep: (comment: string) => boolean): Searched {
  const runs = commentRuns(text).filter((run) => keep(run.text));
  const starts: number[] = [];
  let length = 0;
  for (const run of runs) {
    starts.push(length);
    length += run.text.length + 1;
  }
  const at = (index: number) => {
    let run = starts.length - 1;
    while (run > 0 && (starts[run] ?? 0) > index) run--;
    return (runs[run]?.start ?? 0) + index - (starts[run] ?? 0);
  };
  return { file, text, prose: runs.map((run) => run.text).join('\0'), at };
}

/** Each match of a copy's pattern in `searched`, and for each one whose values are not `wanted`, the problem and the replacement that makes it say them. */
function matchCopy(copy: ProseCopy, pattern: RegExp, wanted: string[], { file, text, prose, at }: Searched) {
  const problems: string[] = [];
  const replacements: Replacement[] = [];
  // A match across two comments is not a copy: the code between them was left out of `prose`.
  const matches = [...prose.matchAll(pattern)].filter((match) => !match[0].includes('\0'));
  for (const match of matches) {
    const groups = match.slice(1).flatMap((value, group) => (value === undefined ? [] : [{ value, span: match.indices?.[group + 1] }]));
    if (groups.map((group) => group.value).join('|') === wanted.slice(0, groups.length).join('|')) continue;
    const index = at(match.index);
    const line = text.slice(0, index).split('\n').length;
    let fixed = match[0];
    // From the last value back, so each replacement leaves the earlier places where they were.
    for (let group = groups.length - 1; group >= 0; group--) {
      const span = groups[group]?.span;
      if (!span) continue;
      fixed = fixed.slice(0, span[0] - match.index) + (wanted[group] ?? groups[group]?.value) + fixed.slice(span[1] - match.index);
    }
    problems.push(`update ${file}:${line}: "${match[0]}" restates ${copy.of}, which now says "${fixed}" (npm run fix writes it)`);
    replacements.push({ file, line, index, from: match[0], to: fixed });
  }
  return { found: matches.length, problems, replacements };
}

/**
 * Checks every place that restates the spec in prose or in an example against the spec:
 * each copy listed here must still be found where it was (a reworded sentence must be listed
 * anew), and each value in it must be what the spec says now. The comments of `src/` are prose
 * too: a comment in any wording listed here is checked wherever it is, listed or not.
 *
 * @param texts the files' contents by path relative to the project root (default: read from disk)
 * @param sources the TypeScript files whose comments are searched (default: every one under `src/`)
 */
export function checkSpecCopies(
  specs: Specs,
  texts: (file: string) => string = (file) => readFileSync(join(projectRoot, file), 'utf8'),
  sources: readonly string[] = sourceFiles(),
): CopiesResult {
  const problems: string[] = [];
  const replacements: Replacement[] = [];
  let checked = 0;
  const sourceTexts = sources.map((file) => ({ file, text: texts(file) }));
  const comments = sourceTexts.map(({ file, text }) => commentsOf(file, text, () => true));
  // Most copies restate a number, and two thirds of the comments have none: those copies search the rest alone.
  const numbered = sourceTexts.map(({ file, text }) => commentsOf(file, text, (comment) => /\d/.test(comment)));
  for (const copy of PROSE_COPIES) {
    const wanted = copy.want(specs).map(String);
    // `d` gives each value's place, so the message can show the sentence as it should read.
    const pattern = new RegExp(copy.find.source, `${copy.find.flags}d`);
    const results = copy.files.map((file) => {
      const text = texts(file);
      const result = matchCopy(copy, pattern, wanted, { file, text, prose: text, at: (index) => index });
      if (result.found === 0)
        problems.push(
          `update tools/check/spec-copies.ts: ${file} no longer says ${copy.find.source} (the copy of ${copy.of}); point the check at the new wording`,
        );
      return result;
    });
    // A comment elsewhere in that wording is a copy too; it need not be listed, so finding none is no problem.
    for (const searched of copy.find.source.includes('(\\d+)') ? numbered : comments)
      if (!copy.files.includes(searched.file)) results.push(matchCopy(copy, pattern, wanted, searched));
    for (const result of results) {
      checked += result.found;
      problems.push(...result.problems);
      replacements.push(...result.replacements);
    }
  }
  for (const copy of VALUE_COPIES) {
    checked++;
    const problem = copy.problem(at(specs[copy.spec], copy.at), specs);
    const file = copy.spec === 'main' ? MAIN : ACCOUNT;
    if (!problem) continue;
    const text = copy.want ? texts(file) : '';
    const place = copy.want ? createValueFinder(text)(copy.at) : undefined;
    const written = place && copy.want ? String(copy.want(specs)) : undefined;
    problems.push(
      `update ${file} ${copy.at}: ${JSON.stringify(at(specs[copy.spec], copy.at))} restates ${copy.of}; it ${problem}` +
        (written === undefined ? ' (by hand)' : ' (npm run fix writes it)'),
    );
    if (place && written !== undefined)
      replacements.push({ file, line: place.line, index: place.start, from: text.slice(place.start, place.end), to: written });
  }
  return {
    ok: problems.length === 0,
    problems,
    replacements,
    message:
      problems.length === 0
        ? `${checked} copies of the specs' limits, bounds and enums in prose and examples agree with the specs`
        : [`${problems.length} cop${problems.length === 1 ? 'y is' : 'ies are'} stale:`, ...problems.map((problem) => `  ${problem}`)].join('\n'),
  };
}

/** The project's two contracts, as `redocly.yaml` names them. */
export function loadSpecs(): Specs {
  const byName = new Map(readContracts().map((contract) => [contract.name, contract.spec]));
  const path = (name: string) => {
    const spec = byName.get(name);
    if (!spec) throw new Error(`redocly.yaml has no api ${name}`);
    return spec;
  };
  return { main: loadSpec(path('main')), account: loadSpec(path('account')) };
}
