import { describe, expect, it } from 'vitest';
import { CONCURRENT_HASHES, HashQueue, QUEUED_HASHES } from '../../src/account/passwords.js';
import { ApiError } from '../../src/http/problems.js';
import { readLimits } from '../../src/contract/limits.js';
import { accountChecker, accountSpec, createTestWebApp, PASSWORD } from '../helpers/web-app.js';

/** A piece of work the test finishes by hand. */
function held<T>(value: T): { work: () => Promise<T>; started: () => boolean; finish: () => void; fail: () => void } {
  let begun = false;
  let settle: (ok: boolean) => void = () => undefined;
  const done = new Promise<boolean>((resolve) => (settle = resolve));
  return {
    work: async () => {
      begun = true;
      if (!(await done)) throw new Error('the hash failed');
      return value;
    },
    started: () => begun,
    finish: () => settle(true),
    fail: () => settle(false),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the password hash queue', () => {
  it('runs `concurrent` at once, keeps `queued` waiting in order, and refuses the next at once with a 503 and Retry-After', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: 2 });
    const jobs = [held(1), held(2), held(3), held(4)];
    const runs = jobs.map((job) => queue.run(job.work));
    const refused = await runs[3]?.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503, type: 'urn:problem-type:service-unavailable', headers: { 'Retry-After': '1' } });
    await tick();
    expect(jobs.map((job) => job.started())).toEqual([true, false, false, false]);
    jobs[0]?.finish();
    await tick();
    expect(jobs.map((job) => job.started())).toEqual([true, true, false, false]);
    jobs[1]?.fail();
    await expect(runs[1]).rejects.toThrow('the hash failed');
    await tick();
    expect(jobs[2]?.started()).toBe(true);
    jobs[2]?.finish();
    expect(await Promise.all(runs.slice(0, 1).concat(runs.slice(2, 3)))).toEqual([1, 3]);
    // Everything done: the slot is free again and the next run starts at once.
    const next = held(5);
    const run = queue.run(next.work);
    await tick();
    expect(next.started()).toBe(true);
    next.finish();
    expect(await run).toBe(5);
  });

  it(`bounds sign-in on the web application: ${CONCURRENT_HASHES} hashing, ${QUEUED_HASHES} waiting, the rest answered 503 as the account spec documents`, async () => {
    // Limits far out of reach: this is about the queue (each sign-in in flight holds an attempt of the account's count).
    const limits = { ...readLimits(accountSpec, 'account').signIn, failuresPerAccount: 1_000, failuresPerClient: 1_000 };
    const t = await createTestWebApp({ accountLimits: { signIn: limits } });
    await t.signUp('ada');
    const signIn = async () => {
      const response = await t.app.request('http://127.0.0.1:3001/api/session', {
        method: 'POST',
        headers: { Host: '127.0.0.1:3001', Origin: 'http://127.0.0.1:3001', 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'ada', password: PASSWORD }),
      });
      const body = await response.text();
      return { status: response.status, headers: response.headers, body };
    };
    const answers = await Promise.all(Array.from({ length: CONCURRENT_HASHES + QUEUED_HASHES + 4 }, signIn));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(CONCURRENT_HASHES + QUEUED_HASHES);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused).toHaveLength(4);
    for (const answer of answers) {
      // A 503 is a server error to the checker, and otherwise the account spec's documented answer: status, Retry-After, problem body.
      expect(accountChecker.check('signIn', answer)).toEqual(answer.status === 503 ? ['server error 503'] : []);
    }
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(refused[0]?.body ?? '')).toMatchObject({ type: 'urn:problem-type:service-unavailable' });
    // Once the flood is through, sign-in works again.
    expect((await signIn()).status).toBe(200);
  });
});
