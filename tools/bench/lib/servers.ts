// The servers under test, in the order they are loaded in each round.
import { MOCK_DEFAULTS, prismCommand } from '../../../src/mock/prism.js';
import { compiledCommand, tsxCommand } from '../../process/commands.js';
import { SERVER_NODE_FLAGS } from '../../../src/config/node-flags.js';
import { SERVER_ENTRY } from './project.js';

export const SERVER_IDS = [
  'raw',
  'hono',
  'project',
  'project-metrics',
  'project-tracing',
  'project-pg',
  'project-pg-x2',
  'fastify',
  'express',
  'prism',
] as const;
/** The rows of this project on SQLite: they share the one database the harness prepares, and its key. */
export const SQLITE_PROJECT_IDS: readonly ServerId[] = ['project', 'project-metrics', 'project-tracing'];
/** The rows that need a PostgreSQL (started by the harness from the machine's binaries). */
export const POSTGRES_SERVER_IDS: readonly ServerId[] = ['project-pg', 'project-pg-x2'];
export type ServerId = (typeof SERVER_IDS)[number];

export interface LaunchContext {
  port: number;
  host: string;
  key: string;
  ownerId: string;
  /** The project's database (only set when the project server runs). */
  databasePath?: string;
  /** The project's PostgreSQL database, for the PostgreSQL rows. */
  databaseUrl?: string;
  /** The spec copy the mock serves. */
  mockSpec: string;
  logLevel: string;
  /** Run the TypeScript servers from the build in dist/ (as `npm run start:prod` does) rather than under tsx. */
  compiled: boolean;
  /** The web application's port for this project's server (the sign-in measurements); a free one when unset. */
  webPort?: number;
}

export interface ServerDefinition {
  id: ServerId;
  label: string;
  /** Processes of this row, each on its own port, the load split between them (default 1). */
  instances?: number;
  /** The command line (before core pinning) and its extra environment. */
  launch(context: LaunchContext): { argv: string[]; env: Record<string, string> };
}

/** The command line for a TypeScript entry: its compiled JavaScript, or the source under the tsx loader in one process. */
export function nodeArgv(entry: string, compiled: boolean): string[] {
  return compiled ? compiledCommand(entry) : tsxCommand(entry);
}

/**
 * Where the tracing row sends its spans: a port nothing listens on (TCP port 1), so every export fails as it
 * would with the collector away; what is measured is what that costs, in throughput, errors and memory.
 */
export const NO_COLLECTOR = 'http://127.0.0.1:1';

/** The observability each row of this project runs with: none (the default), metrics on (`OPS_PORT`), or tracing to no collector. */
type Observability = 'none' | 'metrics' | 'tracing';

/** This project's server as `npm run start:prod` runs it, on SQLite or on PostgreSQL. */
function projectLaunch(context: LaunchContext, database: 'sqlite' | 'postgres', observability: Observability = 'none') {
  const [node = process.execPath, ...rest] = nodeArgv(SERVER_ENTRY, context.compiled);
  return {
    // With the V8 flags it runs with in production (src/config/node-flags.ts).
    argv: [node, ...SERVER_NODE_FLAGS, ...rest],
    env: {
      PORT: String(context.port),
      // A free port keeps several instances of this row apart; the SQLite row's is given, for the sign-in measurements.
      WEB_PORT: String(context.webPort ?? 0),
      HOST: context.host,
      DATABASE_PATH: context.databasePath ?? '',
      ...(database === 'postgres' && { DATABASE_URL: context.databaseUrl ?? '' }),
      LOG_LEVEL: context.logLevel,
      // The limiter still counts every request; the window is just too wide to trip under load.
      RATE_LIMIT_REQUESTS: '1000000000',
      NODE_ENV: 'production',
      // The harness stops its servers at once; production's drain delay is for load balancers.
      SHUTDOWN_DELAY_SECONDS: '0',
      // The ops listener on a free port: every request is then timed and counted for /metrics.
      ...(observability === 'metrics' && { OPS_PORT: '0' }),
      ...(observability === 'tracing' && { OTEL_EXPORTER_OTLP_ENDPOINT: NO_COLLECTOR }),
    },
  };
}

const peer = (file: string) => (context: LaunchContext) => ({
  argv: nodeArgv(`tools/bench/servers/${file}`, context.compiled),
  env: { PORT: String(context.port), HOST: context.host, BENCH_KEY: context.key, BENCH_OWNER_ID: context.ownerId, NODE_ENV: 'production' },
});

export const SERVERS: Record<ServerId, ServerDefinition> = {
  raw: { id: 'raw', label: 'raw node:http', launch: peer('raw.ts') },
  hono: { id: 'hono', label: 'bare Hono', launch: peer('hono.ts') },
  project: {
    id: 'project',
    label: 'this project',
    // As `npm run start:prod` runs it (compiled), or as `npm start` does (`node --import tsx` is the
    // same loader as `tsx`, in one process, so the RSS read is the server's and not a launcher's).
    launch: (context) => projectLaunch(context, 'sqlite'),
  },
  // The same server with the metrics on (OPS_PORT set), and with tracing configured to a collector that is not there.
  'project-metrics': { id: 'project-metrics', label: 'this project, metrics on', launch: (context) => projectLaunch(context, 'sqlite', 'metrics') },
  'project-tracing': { id: 'project-tracing', label: 'this project, tracing, no collector', launch: (context) => projectLaunch(context, 'sqlite', 'tracing') },
  // The same server on PostgreSQL: key and page caches behind LISTEN/NOTIFY, the shared rate limiter leasing blocks.
  'project-pg': { id: 'project-pg', label: 'this project, PostgreSQL', launch: (context) => projectLaunch(context, 'postgres') },
  'project-pg-x2': { id: 'project-pg-x2', label: 'this project, 2 x PostgreSQL', instances: 2, launch: (context) => projectLaunch(context, 'postgres') },
  fastify: { id: 'fastify', label: 'Fastify + schema', launch: peer('fastify.ts') },
  express: { id: 'express', label: 'Express + openapi-validator', launch: peer('express.ts') },
  prism: {
    id: 'prism',
    label: 'Prism mock',
    launch: (context) => ({
      // As `npm run mock` starts it: quiet, in one process.
      argv: prismCommand({ ...MOCK_DEFAULTS, host: context.host, port: context.port, spec: context.mockSpec }),
      env: { NODE_ENV: 'production' },
    }),
  },
};
