import { exchange, httpRequest, type RawExchange, type Step } from './raw-http.js';

/** What the slow clients met, for the soak's report. */
export interface SlowClientsReport {
  clients: number;
  /** Connections opened. */
  connections: number;
  /** How each ended: the status the server answered with, `closed without an answer`, or `still open at the end`. */
  endings: Record<string, number>;
  serverErrors: number;
  /** Answers that are not the contract's problem+json, with up to five examples. */
  notProblems: number;
  examples: string[];
}

/** One way of being slow, as the scripted steps of a raw connection. */
interface Scenario {
  name: string;
  steps: (path: string, token: string) => Step[];
}

const SCENARIOS: Scenario[] = [
  {
    // Headers a line every half second: never done before the headers timeout.
    name: 'slow headers',
    steps: (path) => [
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
      ...Array.from({ length: 200 }, (_, index): Step[] => [{ pauseMs: 500 }, `X-Slow-${index}: z\r\n`]).flat(),
    ],
  },
  {
    // A body a byte every half second: never done before the request timeout.
    name: 'slow body',
    steps: (path, token) => [
      httpRequest('POST', path, [
        ['Authorization', `Bearer ${token}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', '300'],
      ]),
      ...Array.from({ length: 300 }, (): Step[] => [{ pauseMs: 500 }, ' ']).flat(),
    ],
  },
  {
    // A GET announcing a body it never sends: refused at once, the connection closed.
    name: 'GET with an unfinished body',
    steps: (path, token) => [
      httpRequest(
        'GET',
        path,
        [
          ['Authorization', `Bearer ${token}`],
          ['Content-Length', '100'],
        ],
        'ab',
      ),
    ],
  },
  {
    // Connected, and nothing sent at all.
    name: 'idle connection',
    steps: () => [],
  },
];

/** The longest the soak waits for the server to cut a slow client (the request timeout is 30 s by default). */
const GIVE_UP_MS = 120_000;
/** Between two connections of one slow client, so the ones the server refuses at once do not turn into a flood. */
const PAUSE_BETWEEN_MS = 250;

/**
 * Runs `clients` slow clients against the API at `url` until stopped, each cycling through the
 * scenarios above on a fresh connection each time, and tallies how the server ended each one:
 * it must cut them (408, or 400 for a GET body) with the contract's problem, and never with a 5xx.
 */
export function startSlowClients(options: {
  url: string;
  token: string;
  clients: number;
  /** Validates an answer's body against the spec's Problem schema. */
  isProblem: (body: unknown) => boolean;
}): { stop(): Promise<SlowClientsReport> } {
  const { port, pathname } = new URL(options.url);
  const path = `${pathname.replace(/\/+$/, '')}/shared`;
  const stopping = new AbortController();
  const report: SlowClientsReport = { clients: options.clients, connections: 0, endings: {}, serverErrors: 0, notProblems: 0, examples: [] };
  const tally = (ending: string) => (report.endings[ending] = (report.endings[ending] ?? 0) + 1);

  const record = (scenario: Scenario, result: RawExchange): void => {
    const [answer] = result.responses;
    if (!answer) {
      tally(stopping.signal.aborted && !result.closedByServer ? 'still open at the end' : 'closed without an answer');
      return;
    }
    tally(String(answer.status));
    if (answer.status >= 500) report.serverErrors++;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      body = undefined;
    }
    if (answer.headers['content-type'] !== 'application/problem+json' || !options.isProblem(body)) {
      report.notProblems++;
      if (report.examples.length < 5) report.examples.push(`${scenario.name}: ${answer.status} ${answer.body.slice(0, 120)}`);
    }
  };

  const client = async (index: number) => {
    for (let round = 0; !stopping.signal.aborted; round++) {
      const scenario = SCENARIOS[(index + round) % SCENARIOS.length] as Scenario;
      report.connections++;
      record(scenario, await exchange(Number(port), scenario.steps(path, options.token), { waitMs: GIVE_UP_MS, signal: stopping.signal }));
      if (!stopping.signal.aborted) await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_MS));
    }
  };
  const running = Promise.all(Array.from({ length: options.clients }, (_, index) => client(index)));

  return {
    async stop() {
      stopping.abort();
      await running;
      return report;
    },
  };
}
