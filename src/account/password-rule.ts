/**
 * The password rule of the account spec (`SignUpRequest.password`, `x-limits.password`), as NIST SP 800-63B asks:
 * a length (the schema's bounds), and no password that is easy to guess: on a list of common and breached
 * passwords, a common word or name, a keyboard pattern, a repeat, a sequence, a date, or built on the user's
 * name or the service's name. zxcvbn-ts estimates the guesses (offline: its lists ship in its npm packages);
 * it runs on the hashing thread (`passwords.ts`), since a long password costs it tens of milliseconds.
 */

/** The service's name, as a guesser would try it in a password of this service (context-specific words). */
export const SERVICE_WORDS: readonly string[] = ['bearer list', 'bearerlist', 'bearer-list', 'bearer', 'list'];

/** The shortest part of a user name taken as a word of its own: shorter ones (`ann`, `42`) are in any password. */
const MIN_NAME_PART = 4;

/**
 * The words of this account and this service a guesser would try (zxcvbn-ts's user inputs): the user name, each of
 * its parts between separators and digits of four characters or more (`grace.hopper` gives `grace` and `hopper`),
 * each of its beginnings of four or more (`alex`, `alexa`, ... of `alexander`: a password built of the name and its
 * start was accepted), and the service's name.
 */
export function contextWords(userName: string): string[] {
  const name = userName.toLowerCase();
  const parts = name.split(/[^a-z]+|(?<=\D)(?=\d)|(?<=\d)(?=\D)/).filter((part) => part.length >= MIN_NAME_PART);
  const beginnings = Array.from({ length: Math.max(0, name.length - MIN_NAME_PART) }, (_, index) => name.slice(0, MIN_NAME_PART + index));
  return [...new Set([name, ...parts, ...beginnings, ...SERVICE_WORDS])];
}

/** What zxcvbn-ts says of a password: its estimated guesses (log10) and, for a weak one, the pattern it found first. */
export interface PasswordStrength {
  guessesLog10: number;
  /** zxcvbn-ts's warning key (`simpleRepeat`, `userInputs`, `common`, ...), or null. */
  warning: string | null;
}

/**
 * The form a password is hashed and compared in: Unicode NFKC, so the same password typed with compatibility
 * characters (full-width letters, ligatures, a composed or decomposed accent) is the same password.
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Each zxcvbn-ts warning as the rule it broke, in words the sign-up page shows after "password". */
const RULES: Readonly<Record<string, string>> = {
  userInputs: "is built on your user name or the service's name",
  simpleRepeat: 'repeats a character or a group of characters',
  extendedRepeat: 'repeats a character or a group of characters',
  sequences: 'is a sequence of letters or digits, like abcd or 1234',
  straightRow: 'is a row or pattern of keys on the keyboard',
  keyPattern: 'is a row or pattern of keys on the keyboard',
  recentYears: 'is built on a date or a recent year',
  dates: 'is built on a date or a recent year',
  topTen: 'is on a list of common and breached passwords',
  topHundred: 'is on a list of common and breached passwords',
  common: 'is on a list of common and breached passwords',
  similarToCommon: 'is close to a password on a list of common and breached passwords',
  pwned: 'is on a list of common and breached passwords',
  wordByItself: 'is a common word on its own',
  namesByThemselves: 'is a common name on its own',
  commonNames: 'is built on common names',
};

/**
 * Why a password breaks the rule, naming the rule (the 422's violation detail), or undefined when it keeps it.
 *
 * @param minGuessesLog10 `x-limits.password.minGuessesLog10`: the fewest guesses (log10) a password may take.
 */
export function passwordProblem(strength: PasswordStrength, minGuessesLog10: number): string | undefined {
  if (strength.guessesLog10 >= minGuessesLog10) return undefined;
  const rule = (strength.warning !== null && RULES[strength.warning]) || 'is too easy to guess';
  return `${rule}, so it is easy to guess (estimated fewer than 10^${minGuessesLog10} guesses); a few unrelated words make a strong one`;
}
