/**
 * The suite's exits (issue 31, point 5), each with its own code and one line saying why: nothing answering at
 * the URL (2, whichever case would run first), nothing checked (4: no operation, or every case skipped), a
 * document that cannot be resolved (5); a `$ref` into `paths` resolves; Swagger 2.0 is refused with the
 * command that converts it.
 */
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferedIo } from '../../src/cli/io.js';
import { ContractExit, runContract } from '../../src/contract-suite/command.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const NO_PHASES = ['--examples', '0', '--no-stateful'];

async function contract(args: string[]) {
  const io = bufferedIo();
  const code = await runContract(args, io, false);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** A server that answers every request 200 with an empty JSON array: enough for a check to run. */
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('[]'));
  const port = await getPort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('npm run contract, its exits', () => {
  it('exits 2 with one line when nothing answers, even when the first cases are skipped, and reports no transport "violation"', async () => {
    const dead = `http://127.0.0.1:${await getPort()}`;
    // Every case of the only operation but the negative ones is skipped: the first case sent is not the first case.
    const result = await contract(['--spec', fixture('exits/only-writes.yaml'), '--base-url', dead, '--token', 'x', ...NO_PHASES]);
    expect(result.code).toBe(ContractExit.usage);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^contract: nothing answers at http:\/\/127\.0\.0\.1:\d+ \(exit 2\): no answer: .*ECONNREFUSED/),
    ]);
    expect(result.stdout).not.toContain('[transport]');
  });

  it('exits 4 when the spec has no operation, though something answers', async () => {
    const result = await contract(['--spec', fixture('exits/empty.yaml'), '--base-url', baseUrl, '--token', 'x']);
    expect(result).toMatchObject({
      code: ContractExit.nothingChecked,
      stderr: 'contract: nothing was checked (exit 4): the spec declares no operation (its paths are empty)\n',
    });
    expect(result.stdout).toContain('NOTHING CHECKED');
    expect(result.stdout).not.toContain('PASSED');
  });

  it('exits 4 when every case is skipped, with the reason', async () => {
    const result = await contract(['--spec', fixture('exits/only-writes.yaml'), '--base-url', baseUrl, '--token', 'x', ...NO_PHASES]);
    expect(result.code).toBe(ContractExit.nothingChecked);
    expect(result.stderr).toMatch(/^contract: nothing was checked \(exit 4\): every case of its 1 operation was skipped \(skipped for safety: POST may write/m);
    expect(result.stdout).toContain('NOTHING CHECKED');
  });

  it('exits 5 with one line when a $ref leads nowhere', async () => {
    const result = await contract(['--spec', fixture('exits/unresolvable.yaml'), '--base-url', baseUrl, '--token', 'x']);
    expect(result.code).toBe(ContractExit.unresolvableSpec);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^contract: the spec cannot be resolved \(exit 5\).*#\/paths\/~1things\/get\/parameters\/0/),
    ]);
  });

  it('reads a discriminator mapping that names a schema (valid OpenAPI) as no unresolvable ref', async () => {
    const result = await contract(['--spec', fixture('exits/mapping-by-name.yaml'), '--base-url', baseUrl, '--token', 'x', ...NO_PHASES]);
    expect(result.stderr).not.toContain('cannot be resolved');
    expect(result.code).toBe(ContractExit.ok);
  });

  it('resolves a $ref into paths (a parameter and a response schema of another operation)', async () => {
    const result = await contract(['--spec', fixture('exits/ref-into-paths.yaml'), '--base-url', baseUrl, '--token', 'x', ...NO_PHASES]);
    expect(result.stderr).not.toContain('exit 3');
    expect(result.stdout).not.toContain('could not be compiled');
    expect(result.code).toBe(ContractExit.ok);
    expect(result.stdout).toMatch(/^findPetsByStatus +GET \/pet\/findByStatus\n.*\n +ok +positive +verbose: none, true, false/m);
  });

  it('refuses Swagger 2.0 with the command that converts it', async () => {
    const result = await contract(['--spec', fixture('foreign/swagger-20.yaml'), '--base-url', baseUrl, '--token', 'x']);
    expect(result.code).toBe(ContractExit.usage);
    expect(result.stderr).toContain('convert it first with: npx swagger2openapi@7.0.8 --yaml --outfile');
  });
});
