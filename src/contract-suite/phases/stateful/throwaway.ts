import { randomBytes } from 'node:crypto';
import { isObject, type Json, type JsonObject } from '../../../contract/spec.js';
import type { OperationFacts } from '../../operation-facts.js';
import type { CaseResult } from '../../result.js';
import type { RunContext } from '../../run-context.js';
import { Tally } from '../../tally.js';
import { resolveSchema } from '../../values/schema-refs.js';
import { asCaller, type PhaseContext, phaseCase } from '../phase.js';
import type { WriteRole } from '../write-order.js';
import { step } from './step.js';

export interface Session {
  run: RunContext;
  result?: CaseResult;
  /** The throwaway's password, for a write that asks for the current one (a password change). */
  password?: string;
  /** Signs the throwaway in again: the run under a new session. */
  renew?: () => Promise<RunContext | undefined>;
}

/**
 * Where the spec lets anyone make a credential (sign-up: `security: []` and a `Set-Cookie` on success),
 * one is made for the run with a random name and password, and every write runs under it: whatever a
 * write does (revoke, sign out, end a session), it does it to the throwaway, never to the credential
 * the run was given.
 */
export async function throwawayAccount(context: PhaseContext, writes: Array<{ facts: OperationFacts; role: WriteRole }>, done: Set<string>): Promise<Session> {
  const signUp =
    writes.find(({ facts, role }) => role === 'makes-credential' && facts.success === 201)?.facts ??
    writes.find(({ role }) => role === 'makes-credential')?.facts;
  if (!signUp?.body) return { run: context.run };
  done.add(signUp.operation.operationId);
  const entry = phaseCase(signUp, { family: 'stateful', key: 'throwaway account', title: 'a throwaway account for the writes of this run' });
  // The throwaway's own harvest: the ids its writes act on are those its own answers gave, never the given user's.
  const own: RunContext = { ...context.run, harvest: new Map() };
  const tally = new Tally(own, entry, { remember: false });
  const sender = { run: own, values: context.values, tally, entry };
  const body = freshValues(context, signUp.body.schema);
  const made = await step(sender, signUp, { ...signUp.baseline, body });
  const token = made.exchange.response ? credentialIn(own, signUp, made.exchange.response.headers) : undefined;
  if (made.status === undefined || made.status >= 300 || token === undefined) {
    if (made.status !== undefined && made.status < 300)
      tally.record(made.exchange, [{ category: 'contract', message: 'signed up, but the answer set no session cookie' }]);
    return { run: context.run, result: tally.result(`no throwaway account (${made.status ?? 'no answer'}): the writes run under the credential given`) };
  }
  const signIn = writes.find(({ facts, role }) => role === 'makes-credential' && facts !== signUp)?.facts;
  if (signIn) done.add(signIn.operation.operationId);
  if (signIn?.body && isObject(body)) {
    // Sign in as the throwaway too: a second session, so that ending one (the writes' own) is not the end of the run.
    const again = await step(sender, signIn, { ...signIn.baseline, body: pick(body, signIn, context) }, { label: signIn.operation.operationId });
    if (again.status !== undefined && (again.status < 200 || again.status >= 300))
      tally.record(again.exchange, [
        { category: 'status', message: `${signIn.operation.operationId} with the throwaway's own name and password answered ${again.status}` },
      ]);
  }
  const password = isObject(body) ? Object.entries(body).find(([name]) => /pass/i.test(name))?.[1] : undefined;
  const session: Session = { run: own };
  const renew = async (): Promise<RunContext | undefined> => {
    if (!signIn?.body || !isObject(body)) return undefined;
    const renewal = new Tally(own, entry, { remember: false });
    const again = await step({ ...sender, tally: renewal }, signIn, { ...signIn.baseline, body: pick(withPassword(body, session.password), signIn, context) });
    const fresh = again.exchange.response ? credentialIn(own, signIn, again.exchange.response.headers) : undefined;
    return fresh === undefined ? undefined : asCaller(own, fresh, '$SESSION');
  };
  session.renew = renew;
  session.run = asCaller(own, token, '$SESSION');
  session.result = tally.result('signed up a throwaway account; the writes below run under its session');
  if (typeof password === 'string') session.password = password;
  return session;
}

/** Random valid values for a credential body: a name no one has, a password no one guesses. */
function freshValues(context: PhaseContext, schema: Json): Json {
  const resolved = resolveSchema(context.run.spec, schema);
  const properties = isObject(resolved['properties']) ? resolved['properties'] : {};
  const body: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    const required = Array.isArray(resolved['required']) && resolved['required'].includes(name);
    if (!required) continue;
    const secret = /pass|secret/i.test(name) ? `${randomBytes(18).toString('base64url')}-Cs` : undefined;
    const value = secret ?? context.values.unguessable(property) ?? context.values.one(property);
    if (value !== undefined) body[name] = value;
  }
  return body;
}

/** The body with its password fields set to `password` (the throwaway's current one). */
function withPassword(body: JsonObject, password: string | undefined): JsonObject {
  if (password === undefined) return body;
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [name, /pass/i.test(name) ? password : value]));
}

/** The fields of `body` that another operation's body takes (sign-in takes sign-up's name and password). */
function pick(body: JsonObject, facts: OperationFacts, context: PhaseContext): Json {
  const schema = resolveSchema(context.run.spec, facts.body?.schema);
  const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
  return Object.fromEntries(Object.entries(body).filter(([name]) => properties.includes(name)));
}

/** The credential a `Set-Cookie` answer gives, under the cookie name the secured operations take (`__Host-` prefix optional over plain HTTP). */
function credentialIn(run: RunContext, made: OperationFacts, headers: Headers): string | undefined {
  const cookieOf = (facts: OperationFacts) =>
    run.checks.credentials.requirementOf(facts.operation)?.schemes.find((scheme) => scheme.kind === 'apiKey' && scheme.in === 'cookie');
  const scheme = [...run.facts.values()].flatMap((facts) => (facts === made ? [] : [cookieOf(facts)])).find((found) => found !== undefined);
  if (scheme?.kind !== 'apiKey') return undefined;
  const names = new Set([scheme.key, scheme.key.replace(/^__Host-/, '')]);
  for (const cookie of headers.getSetCookie()) {
    const [pair] = cookie.split(';');
    const [name, ...value] = (pair ?? '').split('=');
    if (name && names.has(name.trim()) && value.join('=') !== '') return value.join('=');
  }
  return undefined;
}
