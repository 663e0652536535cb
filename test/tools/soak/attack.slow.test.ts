/**
 * `npm run soak -- --attack`, short (12 s), in `npm run test:slow`: the combined attack of issue 20 against a
 * server it starts, with the guarantees its report must show; and against a stand-in for the server as it was
 * before issue 20 (one failed-authentication budget for all addresses, sign-in locked for the account after
 * others' wrong guesses), which it must catch. Its /64 spread (issue 33) goes through the hop the started server trusts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readContracts } from '../../../src/contract/project.js';
import { loadSpec } from '../../../src/contract/spec.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { ATTACK_ADDRESSES, type AttackReport } from '../../../tools/soak/attack.js';
import { SPREAD_KEYS_IN_FLIGHT } from '../../../tools/soak/spread.js';

const soak = (args: string[]) => runCommand(tsxCommand('tools/soak/main.ts', ['--attack', ...args]), { timeoutMs: 90_000 });

const accountSpec = loadSpec(readContracts().find((contract) => contract.name === 'account')?.spec);
const mainSpec = loadSpec();
const accountLimits = accountSpec['x-limits'] as {
  signIn: { failuresPerAccount: number; successesPerAccount: number; successIntervalSeconds: number };
  signUp: { perClient: number };
};
const mainLimits = mainSpec['x-limits'] as { failedAuthentication: { perAddress: number } };

describe('npm run soak -- --attack, short', () => {
  it('keeps the legitimate user served and signed in through the whole attack, and makes the attack pay', { timeout: 90_000 }, async () => {
    const seconds = 12;
    const run = async () => {
      const { code, stdout, stderr } = await soak(['--duration', String(seconds), '--json']);
      expect(stdout.trim(), `the soak printed no report (exit ${code}): ${stderr}`).not.toBe('');
      return { code, stderr, report: JSON.parse(stdout) as AttackReport & { serverExit: { code: number; stderr: string } } };
    };
    let soaked = await run();
    // The 2 s bound and every-second service are timings. On this shared virtual machine a slow phase lasts minutes
    // (CI's test:slow once took 2,079 s against 1,437), and one such run missed them with every answer right. A run
    // whose every legitimate answer had the right status, with no 5xx, no contract violation and no session that
    // outlived a password change, is measured once more; any other failure is not, and the second run must pass.
    if (!soaked.report.ok && answeredRightButSlow(soaked.report)) soaked = await run();
    const { code, stderr, report } = soaked;

    // The legitimate user: its key served in every whole second, every sign-in from its browser a success.
    expect(report.perSecond).toHaveLength(seconds);
    expect(report.validKey.secondsWithoutService).toEqual([]);
    expect(report.validKey.minServedPerSecond).toBeGreaterThan(0);
    expect(report.validKey.served).toBe(report.validKey.requests);
    expect(report.signIns.deviceCookie).toBe(true);
    expect(report.signIns.tries).toBeGreaterThanOrEqual(seconds / 2 - 1);
    expect(report.signIns.succeeded).toBe(report.signIns.tries);

    // The flood of made-up keys: 401 until an address has spent its budget, 429 after (how far it gets in 12 s
    // depends on the machine), never more 401s than the budgets of its addresses allow.
    expect(report.flood.requests).toBeGreaterThan(1_000);
    expect(['401', '429']).toEqual(expect.arrayContaining(Object.keys(report.flood.statuses)));
    expect(report.flood.statuses['401']).toBeLessThanOrEqual(ATTACK_ADDRESSES.flood.length * mainLimits.failedAuthentication.perAddress);

    // The guesses at the user's password: at most the account's free attempts checked, the rest refused before the hash.
    expect(report.guesses.unauthorized).toBeLessThanOrEqual(accountLimits.signIn.failuresPerAccount);
    expect(report.guesses.tooMany).toBeGreaterThan(report.guesses.requests * 0.9);
    expect(Object.keys(report.guesses.statuses).sort()).toEqual(['401', '429']);

    // The sign-ups: at most the free ones per address made, the rest refused (each makes a hash at the lowest
    // priority, so on a busy machine 12 s may end before the addresses reach their limit; test/account/ tests the limit).
    expect(report.signUps.made).toBeGreaterThan(0);
    expect(report.signUps.made).toBeLessThanOrEqual(ATTACK_ADDRESSES.signUps.length * accountLimits.signUp.perClient);
    expect(['201', '429']).toEqual(expect.arrayContaining(Object.keys(report.signUps.statuses)));

    // The self sign-in storm (issue 33): right passwords for the attacker's own account, hashed at most at the
    // account's rate (its free ones, then one an interval), every other one refused before the hash.
    expect(report.storm.requests).toBeGreaterThan(100);
    expect(report.storm.statuses['200'] ?? 0).toBeLessThanOrEqual(
      accountLimits.signIn.successesPerAccount + Math.ceil(seconds / accountLimits.signIn.successIntervalSeconds) + 1,
    );
    expect(Object.keys(report.storm.statuses).sort()).toEqual(['200', '429']);
    // Newcomers sign up and the owner changes its password under all of it, each in under 2 s; no session made before a
    // change, nor by a sign-in racing it with the old password, outlives it.
    expect(report.newcomers.tries).toBeGreaterThan(0);
    expect(report.newcomers.succeeded).toBe(report.newcomers.tries);
    expect(report.passwordChanges.tries).toBeGreaterThan(0);
    expect(report.passwordChanges.succeeded).toBe(report.passwordChanges.tries);
    expect(report.passwordChanges.sessionsChecked).toBeGreaterThan(0);
    expect(report.passwordChanges.sessionsSurviving).toBe(0);

    // The /64 spread (issue 33): made-up keys and sign-ups from many addresses of one IPv6 /64, through the hop the server
    // trusts, get one client's budgets. The server is SQLite (its budget counted at once, no database round trip), so the
    // 401s are the budget and at most the requests in flight beside the one that spent it; 12 s is within one window.
    const { spread } = report;
    if (!spread.run) throw new Error(`the /64 spread was not run: ${spread.reason}`);
    expect(spread.proxyAddress).toBe(ATTACK_ADDRESSES.proxy);
    expect(spread.addresses).toBeGreaterThan(mainLimits.failedAuthentication.perAddress);
    expect(spread.keys.unauthorized).toBeLessThanOrEqual(mainLimits.failedAuthentication.perAddress + SPREAD_KEYS_IN_FLIGHT - 1);
    expect(spread.keys.tooMany).toBeGreaterThan(0);
    expect(Object.keys(spread.keys.statuses).sort()).toEqual(['401', '429']);
    // Another network through the same hop still got its own budget: the server counted the forwarded /64, not the hop.
    expect(spread.neighbour.status).toBe(401);
    expect(spread.hopTrusted).toBe(true);
    expect(spread.signUps.requests).toBeGreaterThan(0);
    expect(spread.signUps.made).toBeLessThanOrEqual(accountLimits.signUp.perClient);
    expect(['201', '429']).toEqual(expect.arrayContaining(Object.keys(spread.signUps.statuses)));
    expect(spread.oneClient).toBe(true);

    expect(report.serverErrors).toBe(0);
    expect(report.socketErrors).toEqual({});
    expect(report.contractViolations).toBe(0);
    expect(report.ok).toBe(true);
    expect(code, stderr).toBe(0);
    expect(report.serverExit).toMatchObject({ code: 0, stderr: '' });
  });

  it('exits 1 against a server that lets the attack lock the legitimate user out, as before issue 20', { timeout: 60_000 }, async () => {
    const stand = await standInForTheOldServer();
    try {
      const { code, stdout, stderr } = await soak(['--url', stand.url, '--web-url', stand.webUrl, '--duration', '5', '--json']);
      expect(code, stderr).toBe(1);
      const report = JSON.parse(stdout) as AttackReport;
      expect(report.ok).toBe(false);
      // The shared budget spent, the valid key is refused: seconds without service.
      expect(report.validKey.secondsWithoutService.length).toBeGreaterThan(0);
      // The account locked by others' guesses: the owner's sign-ins fail.
      expect(report.signIns.tries).toBeGreaterThan(0);
      expect(report.signIns.succeeded).toBeLessThan(report.signIns.tries);
      // No hop was given against --url: the /64 spread is not run, and the report says so.
      expect(report.spread).toMatchObject({ run: false, reason: expect.stringContaining('--proxy-address') });
    } finally {
      await stand.close();
    }
  });
});

/** A failed run whose every legitimate request got the answer it should have, only not in time (or not in some second). */
function answeredRightButSlow(report: AttackReport): boolean {
  const only = (statuses: Record<string, number>, wanted: string) => Object.keys(statuses).every((status) => status === wanted);
  return (
    report.validKey.statuses['other'] === 0 &&
    only(report.signIns.statuses, '200') &&
    only(report.newcomers.statuses, '201') &&
    only(report.passwordChanges.statuses, '204') &&
    report.passwordChanges.sessionsSurviving === 0 &&
    (!report.spread.run || report.spread.oneClient) &&
    report.serverErrors === 0 &&
    report.contractViolations === 0
  );
}

/**
 * A small model of the server before issue 20's fixes, with the two faults the attack is built to catch: one
 * failed-authentication budget for all addresses together (`OLD_SHARED_BUDGET`), past which every key not already known is
 * refused with 429; and an account locked for everyone, its owner too, after 10 wrong passwords.
 */
/**
 * The stand-in's one budget for all addresses. Small enough that the flood spends it within the run's first seconds on
 * a slow machine too: at 2,000 a CI run in a slow phase sent fewer in its 5 s, so the valid key was never refused and
 * the test saw no second without service.
 */
const OLD_SHARED_BUDGET = 200;

async function standInForTheOldServer(): Promise<{ url: string; webUrl: string; close: () => Promise<void> }> {
  const keys = new Set<string>();
  const failures = new Map<string, number>();
  const passwords = new Map<string, string>();
  let failedAuthentications = 0;
  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) =>
    response.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
  const read = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    return (text ? JSON.parse(text) : {}) as { name?: string; password?: string };
  };

  const api = createServer((request, response) => {
    request.resume();
    const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (failedAuthentications >= OLD_SHARED_BUDGET) return json(response, 429, { title: 'Too many failed authentications' });
    if (!keys.has(key)) {
      failedAuthentications++;
      return json(response, 401, { title: 'Unauthorized' });
    }
    return json(response, 200, { items: [] });
  });
  const web = createServer(async (request, response) => {
    const body = await read(request);
    const name = body.name ?? '';
    if (request.url === '/api/users') {
      passwords.set(name, body.password ?? '');
      return json(response, 201, {}, { 'Set-Cookie': ['session=s; Path=/', 'device=d; Path=/'] });
    }
    if (request.url === '/api/session') {
      if ((failures.get(name) ?? 0) >= 10) return json(response, 429, { title: 'Too many sign-ins' });
      if (passwords.get(name) !== body.password) {
        failures.set(name, (failures.get(name) ?? 0) + 1);
        return json(response, 401, { title: 'Unauthorized' });
      }
      return json(response, 200, {}, { 'Set-Cookie': 'session=s; Path=/' });
    }
    if (request.url === '/api/keys') {
      const secret = `tka_${keys.size}`;
      keys.add(secret);
      return json(response, 201, { secret });
    }
    return json(response, 404, {});
  });
  const listen = (server: Server) =>
    new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: await listen(api), webUrl: await listen(web), close: async () => void (await Promise.all([close(api), close(web)])) };
}
