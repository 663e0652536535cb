import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** How an app learns who is calling, for the per-client budgets and limits. */
export type ClientAddress = (c: Context) => string;

/**
 * The TCP peer, as @hono/node-server passes the Node request in `c.env.incoming`; requests made in-process
 * (tests, `app.request()`) share one. Behind a proxy this is the proxy: the one place a trusted proxy's
 * forwarded address would be read.
 */
export const socketAddress: ClientAddress = (c) => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ?? 'in-process';
