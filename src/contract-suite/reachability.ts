import { send, type Transport } from './http.js';

/**
 * Why nothing answers at the base URL, or undefined when something does (any HTTP status will do: a
 * 404 at the root is an answer). Asked once before any case, so a dead URL is one line and exit 2
 * whichever case would have run first, never a list of `[transport]` "violations" of the API.
 */
export async function unreachableReason(transport: Transport): Promise<string | undefined> {
  const exchange = await send(transport, { method: 'GET', url: transport.baseUrl, headers: {} });
  return exchange.response ? undefined : `no answer: ${exchange.failure ?? 'unknown failure'}`;
}
