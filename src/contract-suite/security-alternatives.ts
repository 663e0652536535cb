import type { OperationContract } from '../contract/operations.js';
import { type Credentials, type CredentialWire, place, type Scheme } from './credentials.js';

/**
 * The alternatives of an operation's `security`, each the names of the schemes presented together
 * (`[[oauth2], [queryKey], [cookieKey]]`: a bearer token OR an API key in the query OR one in a cookie).
 * Empty when the operation may be called without a credential.
 */
export function securityAlternatives(operation: OperationContract): string[][] {
  const alternatives = operation.securityRequirements ?? (operation.security.length > 0 ? [operation.security] : []);
  return alternatives.some((names) => names.length === 0) ? [] : alternatives;
}

/** The schemes of one alternative, as the run reads them (a name with no scheme in components is one the suite cannot present). */
export function schemesOf(credentials: Credentials, names: readonly string[]): Scheme[] {
  return names.map((name): Scheme => credentials.schemes.get(name) ?? { name, kind: 'unsupported', reason: `no security scheme ${name} in components` });
}

/**
 * Puts exactly one alternative's credentials on the wire, and nothing of the others: a case about the
 * query key alternative must not also carry the bearer token, or the token would be what gets it in.
 * `replace` gives one of its schemes another value (an unknown, empty or refused one).
 */
export function presentAlternative(
  credentials: Credentials,
  names: readonly string[],
  wire: CredentialWire,
  replace?: { scheme: string; value: string },
): void {
  for (const scheme of schemesOf(credentials, names)) {
    const value = replace?.scheme === scheme.name ? replace.value : credentials.valueOf(scheme.name);
    if (value !== undefined) place(scheme, value, wire);
  }
}
