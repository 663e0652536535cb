/** What a readiness check says: `undefined` when its part is ready, else why not, in a few words an operator can act on. */
export type CheckResult = string | undefined;

/** One named condition of readiness: the database answers, migrations are done, the instance is not draining... */
export type ReadinessCheck = () => CheckResult | Promise<CheckResult>;

/** A check's verdict; `advisory` when it is reported but does not decide readiness (ADR 0034). */
export type CheckVerdict = ({ ready: true } | { ready: false; reason: string }) & { advisory?: true };

/** What `/readyz` answers: ready when every check that decides is, and each check's verdict by name. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckVerdict>;
}

export interface CheckOptions {
  /**
   * Reported, but never makes the instance not ready: for a dependency every instance shares (the database), whose
   * failure this instance answers in the contract itself (503 problem+json with Retry-After). Failing readiness there
   * would take every instance out of the balancer at once, which then answers in its own words (ADR 0034).
   */
  advisory?: boolean;
}

/** How long one check may take before it counts as failed (a database that hangs is not ready). */
export const DEFAULT_CHECK_TIMEOUT_MS = 2_000;

/**
 * Readiness as a list of named checks, run together on every `/readyz`; an advisory check is reported and does not decide. Any part of the server adds its own
 * (`readiness.add('secrets', …)`) without the probe knowing about it. A check that throws, or takes longer than
 * the timeout, is not ready, with its error's message as the reason.
 *
 * @example
 * const readiness = new Readiness();
 * readiness.add('draining', () => (draining ? 'shutting down' : undefined));
 * const { ready, checks } = await readiness.report();
 */
export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>();
  readonly #advisory = new Set<string>();
  readonly #timeoutMs: number;

  constructor(options: { timeoutMs?: number } = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  }

  /** Adds a check; a name is added once (two parts claiming one name is a mistake to see at startup). */
  add(name: string, check: ReadinessCheck, options: CheckOptions = {}): this {
    if (this.#checks.has(name)) throw new Error(`the readiness check ${name} is already added`);
    this.#checks.set(name, check);
    if (options.advisory) this.#advisory.add(name);
    return this;
  }

  /** The names of the checks, in the order they were added. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check at once, each bounded by the timeout. */
  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all([...this.#checks].map(async ([name, check]) => [name, await this.#run(check)] as const));
    const checks: ReadinessReport['checks'] = {};
    for (const [name, reason] of entries) {
      const verdict: CheckVerdict = reason === undefined ? { ready: true } : { ready: false, reason };
      checks[name] = this.#advisory.has(name) ? { ...verdict, advisory: true } : verdict;
    }
    return { ready: entries.every(([name, reason]) => reason === undefined || this.#advisory.has(name)), checks };
  }

  async #run(check: ReadinessCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.#timeoutMs} ms`), this.#timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(check), timeout]);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  }
}
