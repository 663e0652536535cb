import getPort from 'get-port';

/**
 * A free port for a process that binds it some time after it is picked (Prism once it has read the spec, PostgreSQL
 * once `pg_ctl` has started it, a server once tsx has loaded it). Tried first: ports in random order below Linux's
 * ephemeral range (32768-60999). A port picked free from that range could meanwhile be handed to any process
 * listening on port 0 or opening a connection; below it, only another picker like this one could take it, and
 * get-port keeps what it handed out in this process from being handed out again. Past those, any free port.
 */
export function portToBindLater(host = '127.0.0.1'): Promise<number> {
  return getPort({ host, port: Array.from({ length: 32 }, () => 20_000 + Math.floor(Math.random() * 12_000)) });
}
