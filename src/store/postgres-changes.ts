import pg from 'pg';
import { CHANGE_CHANNEL } from './migrations.js';
import type { ChangeSignal, Changes } from './store.js';

export interface PostgresChangeOptions {
  url: string;
  /** The cache forgets at least this often, whatever the listener says: the backstop for a notification lost unnoticed. */
  ttlMs: number;
  connectTimeoutMs: number;
  /** How often the listener connection is checked with a `SELECT 1`; a failed check counts as a drop. */
  pingIntervalMs?: number;
  applicationName?: string;
  /** Told when the listener connects and drops, for the log. */
  onState?: (state: 'listening' | 'dropped', error?: unknown) => void;
}

const RECONNECT_MIN_MS = 100;
/** The payload of a key's change (migration 10): the prefix, then the key's digest in hex. */
const KEY_PREFIX = 'api_keys:';
/** Tables whose notifications name them (migrations 1 and 2); another payload is taken as "everything". */
const KNOWN_TABLES = new Set(['api_keys', 'items', 'shares', 'sessions']);
/** Keys named one by one between two checks, past which everything is forgotten instead. */
const MAX_DIGESTS = 1_000;
const RECONNECT_MAX_MS = 5_000;

/**
 * The change signal of the PostgreSQL store: a flag, so `changes()` (called on
 * every key check) is a field read while nothing changed. It is set
 * - by a notification on `store_changes`, which the schema's triggers send when a
 *   key, an item, a share or a session changes, from any instance, the keys CLI or
 *   plain SQL: a key's names its digest, so only that key is forgotten;
 * - when the dedicated listener connection drops: until it listens again every
 *   check says "changed", so nothing is served from memory while changes could be
 *   missed, and once more when it is back, for what happened in between;
 * - every `ttlMs`, a backstop for a connection that died without anyone noticing
 *   (the ping notices too, within `pingIntervalMs` plus the connect timeout).
 */
export class PostgresChangeSignal implements ChangeSignal {
  readonly #options: PostgresChangeOptions;
  /** Something is to be told: a field read on every key check. */
  #changed = true;
  /** What cannot be told apart (a drop, the backstop, a payload of no table this knows): everything. */
  #everything = true;
  #digests: Buffer[] = [];
  #tables = new Set<string>();
  #listening = false;
  #client: pg.Client | undefined;
  #closed = false;
  #retryMs = RECONNECT_MIN_MS;
  #retry: NodeJS.Timeout | undefined;
  readonly #ttl: NodeJS.Timeout;
  readonly #ping: NodeJS.Timeout;

  private constructor(options: PostgresChangeOptions) {
    this.#options = options;
    this.#ttl = setInterval(() => this.#forgetEverything(), options.ttlMs);
    this.#ttl.unref();
    this.#ping = setInterval(() => this.#checkConnection(), options.pingIntervalMs ?? 2_000);
    this.#ping.unref();
  }

  /** Connects and listens before resolving, so a cache never starts trusting memory unheard; rejects when the database is away. */
  static async open(options: PostgresChangeOptions): Promise<PostgresChangeSignal> {
    const signal = new PostgresChangeSignal(options);
    try {
      await signal.#connect();
    } catch (error) {
      await signal.close();
      throw error;
    }
    return signal;
  }

  changes(): Changes | undefined {
    if (!this.#changed) return undefined;
    const changes: Changes = this.#everything ? 'everything' : { digests: this.#digests, tables: this.#tables };
    this.#digests = [];
    this.#tables = new Set();
    // Not listening: nothing can be trusted until it is again, so every check says everything.
    this.#everything = !this.#listening;
    this.#changed = this.#everything;
    return changes;
  }

  /** A notification's payload: `api_keys:<hex digest>` for a key, else the name of the table that changed. */
  #notified(payload: string | undefined): void {
    this.#changed = true;
    const digest = payload?.startsWith(KEY_PREFIX) ? payload.slice(KEY_PREFIX.length) : undefined;
    if (digest !== undefined && /^[0-9a-f]{64}$/.test(digest)) this.#digests.push(Buffer.from(digest, 'hex'));
    else if (payload && KNOWN_TABLES.has(payload)) this.#tables.add(payload);
    else this.#everything = true;
    // A flood of single keys is cheaper forgotten at once.
    if (this.#digests.length > MAX_DIGESTS) this.#everything = true;
  }

  #forgetEverything(): void {
    this.#changed = true;
    this.#everything = true;
  }

  /** True while the listener connection is up and listening. */
  get listening(): boolean {
    return this.#listening;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      query_timeout: this.#options.connectTimeoutMs,
      keepAlive: true,
      application_name: this.#options.applicationName ?? 'bearer-list-api listener',
    });
    client.on('notification', (message) => this.#notified(message.payload));
    client.on('error', (error) => this.#dropped(client, error));
    client.on('end', () => this.#dropped(client));
    this.#client = client;
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (this.#client !== client || this.#closed) return;
    this.#listening = true;
    // Whatever changed while nobody listened is unknown: forget once more.
    this.#forgetEverything();
    this.#retryMs = RECONNECT_MIN_MS;
    this.#options.onState?.('listening');
  }

  #dropped(client: pg.Client, error?: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    const was = this.#listening;
    this.#listening = false;
    this.#forgetEverything();
    client.end().catch(() => undefined);
    if (this.#closed) return;
    if (was) this.#options.onState?.('dropped', error);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      const attempt = this.#client;
      if (attempt || this.#closed) return;
      this.#connect().catch((error: unknown) => {
        const client = this.#client;
        if (client) this.#dropped(client, error);
        else this.#scheduleReconnect();
      });
    }, delay);
    this.#retry.unref();
  }

  #checkConnection(): void {
    const client = this.#client;
    if (!client || !this.#listening) return;
    client.query('SELECT 1').catch((error: unknown) => this.#dropped(client, error));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    this.#forgetEverything();
    clearInterval(this.#ttl);
    clearInterval(this.#ping);
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
