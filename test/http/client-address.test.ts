/**
 * The one client-address resolver: the TCP peer, or, when the peer is a trusted proxy, the client the
 * proxy names in the one header the deployment chose. Cases as tables of {given, want}, on a Node
 * request as @hono/node-server passes it (`c.env.incoming`).
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { TrustedProxies } from '../../src/config/trusted-proxies.js';
import { type ClientAddress, clientAddress } from '../../src/http/client-address.js';

async function resolve(resolver: ClientAddress, peer: string | undefined, headers: Record<string, string> = {}): Promise<string> {
  const app = new Hono();
  app.get('/', (c) => c.text(resolver(c)));
  const incoming = peer === undefined ? undefined : { socket: { remoteAddress: peer }, headers };
  return (await app.request('/', { headers }, incoming && { incoming })).text();
}

const proxies = (addresses: string[], header: TrustedProxies['header'] = 'x-forwarded-for'): TrustedProxies => ({ addresses, header });

describe('the client address', () => {
  it.each([
    {
      given: 'no trusted proxy: a forwarded header is anyone’s to send',
      trust: undefined,
      peer: '198.51.100.7',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      want: '198.51.100.7',
    },
    { given: 'no socket (in-process)', trust: proxies(['127.0.0.1']), peer: undefined, headers: {}, want: 'in-process' },
    {
      given: 'a trusted peer: the client it names',
      trust: proxies(['127.0.0.1']),
      peer: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      want: '203.0.113.9',
    },
    { given: 'a trusted peer without the header: the peer', trust: proxies(['127.0.0.1']), peer: '127.0.0.1', headers: {}, want: '127.0.0.1' },
    {
      given: 'an untrusted peer: the peer, whatever it claims',
      trust: proxies(['10.0.0.0/8']),
      peer: '198.51.100.7',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      want: '198.51.100.7',
    },
    {
      given: 'a client that sends its own header: the proxy appends, and the hop it saw wins',
      trust: proxies(['10.0.0.0/8']),
      peer: '10.0.0.2',
      headers: { 'x-forwarded-for': '192.0.2.66, 203.0.113.9' },
      want: '203.0.113.9',
    },
    {
      given: 'two trusted hops, by CIDR range',
      trust: proxies(['10.0.0.0/8', '172.16.0.0/12']),
      peer: '10.0.0.2',
      headers: { 'x-forwarded-for': '192.0.2.66, 203.0.113.9, 172.16.4.4' },
      want: '203.0.113.9',
    },
    {
      given: 'an IPv4-mapped IPv6 peer matches its IPv4 range',
      trust: proxies(['127.0.0.1']),
      peer: '::ffff:127.0.0.1',
      headers: { 'x-forwarded-for': '2001:db8::7' },
      want: '2001:db8::7',
    },
    {
      given: 'Forwarded: the for= of the last element, port and brackets removed',
      trust: proxies(['127.0.0.1'], 'forwarded'),
      peer: '127.0.0.1',
      headers: { forwarded: 'for=192.0.2.66, for="[2001:db8:cafe::17]:4711";proto=https' },
      want: '2001:db8:cafe::17',
    },
    {
      given: 'Forwarded: an IPv4 address with a port, behind two trusted hops',
      trust: proxies(['127.0.0.1', '10.0.0.0/8'], 'forwarded'),
      peer: '127.0.0.1',
      headers: { forwarded: 'for="203.0.113.9:47011", for=10.1.2.3' },
      want: '203.0.113.9',
    },
    {
      given: 'Forwarded that does not parse: the peer',
      trust: proxies(['127.0.0.1'], 'forwarded'),
      peer: '127.0.0.1',
      headers: { forwarded: 'for=203.0.113.9;;' },
      want: '127.0.0.1',
    },
    {
      given: 'Forwarded chosen: X-Forwarded-For is not read',
      trust: proxies(['127.0.0.1'], 'forwarded'),
      peer: '127.0.0.1',
      headers: { 'x-forwarded-for': '192.0.2.66' },
      want: '127.0.0.1',
    },
    {
      given: 'X-Forwarded-For chosen: Forwarded is not read',
      trust: proxies(['127.0.0.1']),
      peer: '127.0.0.1',
      headers: { forwarded: 'for=192.0.2.66' },
      want: '127.0.0.1',
    },
  ])('$given', async ({ trust, peer, headers, want }) => {
    expect(await resolve(clientAddress(trust), peer, headers)).toBe(want);
  });
});
