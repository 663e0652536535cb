// The servers under test, in the order they are loaded in each round.
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { SERVER_ENTRY } from './project.js';

export const SERVER_IDS = ['raw', 'hono', 'project', 'fastify', 'express', 'prism'] as const;
export type ServerId = (typeof SERVER_IDS)[number];

export interface LaunchContext {
  port: number;
  host: string;
  key: string;
  ownerId: string;
  /** The project's database (only set when the project server runs). */
  databasePath?: string;
  /** The spec copy the mock serves. */
  mockSpec: string;
  logLevel: string;
}

export interface ServerDefinition {
  id: ServerId;
  label: string;
  /** The command line (before core pinning) and its extra environment. */
  launch(context: LaunchContext): { argv: string[]; env: Record<string, string> };
}

const node = process.execPath;
const peer = (file: string) => (context: LaunchContext) => ({
  argv: [node, '--import', 'tsx', join(projectRoot, 'bench', 'servers', file)],
  env: { PORT: String(context.port), HOST: context.host, BENCH_KEY: context.key, BENCH_OWNER_ID: context.ownerId, NODE_ENV: 'production' },
});

export const SERVERS: Record<ServerId, ServerDefinition> = {
  raw: { id: 'raw', label: 'raw node:http', launch: peer('raw.ts') },
  hono: { id: 'hono', label: 'bare Hono', launch: peer('hono.ts') },
  project: {
    id: 'project',
    label: 'this project',
    // `npm start` runs `tsx src/server/main.ts`; `node --import tsx` is the same loader
    // in one process, so the RSS read is the server's and not a launcher's.
    launch: (context) => ({
      argv: [node, '--import', 'tsx', SERVER_ENTRY],
      env: {
        PORT: String(context.port),
        HOST: context.host,
        DATABASE_PATH: context.databasePath ?? '',
        LOG_LEVEL: context.logLevel,
        // The limiter still counts every request; the window is just too wide to trip under load.
        RATE_LIMIT_REQUESTS: '1000000000',
        NODE_ENV: 'production',
      },
    }),
  },
  fastify: { id: 'fastify', label: 'Fastify + schema', launch: peer('fastify.ts') },
  express: { id: 'express', label: 'Express + openapi-validator', launch: peer('express.ts') },
  prism: {
    id: 'prism',
    label: 'Prism mock',
    launch: (context) => ({
      argv: [
        node,
        join(projectRoot, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js'),
        'mock',
        context.mockSpec,
        '--port',
        String(context.port),
        '--host',
        context.host,
        // As `npm run mock` starts it (src/mock/prism.ts): quiet, in one process.
        '--verboseLevel',
        'warn',
        '--multiprocess=false',
      ],
      env: { NODE_ENV: 'production' },
    }),
  },
};
