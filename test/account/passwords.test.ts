import { beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_OPTIONS, CONCURRENT_HASHES, HashQueue, QUEUED_HASHES, useHashParametersForTests } from '../../src/account/passwords.js';
import { readLimits } from '../../src/contract/limits.js';
import { ApiError } from '../../src/http/problems.js';
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

// This file is about the real hash (test/setup/ lowers its cost for the others): its stored parameters, and the queue's
// bounds and order while each hash holds the thread its 40 ms, as in production.
beforeAll(() => useHashParametersForTests(ARGON2_OPTIONS));

describe('the password hash', () => {
  it("is Argon2id with OWASP's minimum parameters, which the stored PHC string carries", async () => {
    expect(ARGON2_OPTIONS).toEqual({ algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    const t = await createTestWebApp();
    await t.signUp('ada');
    const credential = await t.store.findUserCredential('ada');
    expect(credential?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(credential?.passwordHash).not.toContain(PASSWORD);
  });
});

describe('the password hash queue', () => {
  it('runs `concurrent` at once, keeps `queued` waiting in order, and refuses the next at once with a 503 and Retry-After', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 2, 'sign-up': 2, 'password-change': 2 } });
    const jobs = [held(1), held(2), held(3), held(4)];
    const runs = jobs.map((job) => queue.run('sign-in', job.work));
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
    const run = queue.run('sign-up', next.work);
    await tick();
    expect(next.started()).toBe(true);
    next.finish();
    expect(await run).toBe(5);
  });

  it('gives a free slot to a waiting sign-in before any sign-up, and bounds each line on its own', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 1, 'sign-up': 2, 'password-change': 2 } });
    const running = held('sign-up 0');
    const signUps = [held('sign-up 1'), held('sign-up 2'), held('sign-up 3')];
    const signIns = [held('sign-in 1'), held('sign-in 2')];
    const first = queue.run('sign-up', running.work);
    const upRuns = signUps.map((job) => queue.run('sign-up', job.work));
    // The sign-up line is full: the third is refused, while a sign-in still gets in line.
    await expect(upRuns[2]).rejects.toMatchObject({ status: 503, message: expect.stringContaining('sign-ups') });
    const inRuns = signIns.map((job) => queue.run('sign-in', job.work));
    await expect(inRuns[1]).rejects.toMatchObject({ status: 503, message: expect.stringContaining('sign-ins') });
    running.finish();
    await tick();
    // The sign-in that came last goes before the sign-ups that waited longer.
    expect([signIns[0]?.started(), signUps[0]?.started()]).toEqual([true, false]);
    signIns[0]?.finish();
    await tick();
    expect(signUps[0]?.started()).toBe(true);
    signUps[0]?.finish();
    await tick();
    signUps[1]?.finish();
    expect(await Promise.all([first, upRuns[0], upRuns[1], inRuns[0]])).toEqual(['sign-up 0', 'sign-up 1', 'sign-up 2', 'sign-in 1']);
  });

  it('takes turns: a sign-up or a password change waits behind at most signInsPerTurn sign-ins, however long the sign-in line', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 16, 'sign-up': 4, 'password-change': 4 }, signInsPerTurn: 3 });
    const order: string[] = [];
    const jobs = new Map<string, ReturnType<typeof held<string>>>();
    const runs: Promise<string>[] = [];
    const submit = (lane: 'sign-in' | 'sign-up' | 'password-change', name: string) => {
      const job = held(name);
      jobs.set(name, job);
      runs.push(
        queue.run(lane, async () => {
          order.push(name);
          return job.work();
        }),
      );
    };
    submit('sign-in', 'in-0');
    for (let i = 1; i <= 12; i++) submit('sign-in', `in-${i}`);
    submit('sign-up', 'up-1');
    submit('password-change', 'pw-1');
    submit('sign-up', 'up-2');
    // Finish whatever runs, one at a time, until every job has run; sign-ins keep arriving behind each as the storm does.
    let extra = 13;
    while (order.length < jobs.size) {
      const current = order.at(-1);
      await tick();
      jobs.get(current ?? '')?.finish();
      await tick();
      if (extra < 20) submit('sign-in', `in-${extra++}`);
    }
    for (const job of jobs.values()) job.finish();
    await Promise.all(runs);
    // The running sign-in, then 3 more, then the change (its line is served first), 3 sign-ins, the sign-up, 3, the next sign-up.
    expect(order.slice(0, 16)).toEqual([
      'in-0',
      'in-1',
      'in-2',
      'pw-1',
      'in-3',
      'in-4',
      'in-5',
      'up-1',
      'in-6',
      'in-7',
      'in-8',
      'up-2',
      'in-9',
      'in-10',
      'in-11',
      'in-12',
    ]);
    // Each sign-up or change waited behind at most 3 sign-ins (and one job of the other line) once at the head of its line.
    for (const name of ['pw-1', 'up-1', 'up-2']) {
      const at = order.indexOf(name);
      const before = order.slice(Math.max(0, at - 4), at).filter((job) => job.startsWith('in-'));
      expect(before.length).toBeLessThanOrEqual(3);
    }
  });

  it('alternates sign-ups and password changes when both wait, and serves sign-ins only once the others are empty or had their turn', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 4, 'sign-up': 4, 'password-change': 4 }, signInsPerTurn: 1 });
    const order: string[] = [];
    const running = held('first');
    const first = queue.run('sign-up', running.work);
    const submit = (lane: 'sign-in' | 'sign-up' | 'password-change', name: string) =>
      queue.run(lane, async () => {
        order.push(name);
        return name;
      });
    const all = [
      submit('sign-up', 'up-1'),
      submit('sign-up', 'up-2'),
      submit('password-change', 'pw-1'),
      submit('password-change', 'pw-2'),
      submit('sign-in', 'in-1'),
      submit('sign-in', 'in-2'),
    ];
    expect(queue.waiting).toEqual({ 'sign-in': 2, 'sign-up': 2, 'password-change': 2 });
    running.finish();
    await Promise.all([first, ...all]);
    // The sign-up that ran counts as the other lines' latest turn: a sign-in, then a change, a sign-in, the sign-up, then the rest.
    expect(order).toEqual(['in-1', 'pw-1', 'in-2', 'up-1', 'pw-2', 'up-2']);
  });

  it('serves, within a line, the client that had a turn least recently first: a newcomer is not kept behind a few busy clients', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 4, 'sign-up': 8, 'password-change': 4 } });
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
      return name;
    };
    // Two flooding clients have each had a turn; then each queues again, and a newcomer queues last.
    await Promise.all([queue.run('sign-up', job('a-1'), 'a'), queue.run('sign-up', job('b-1'), 'b')]);
    const running = held('running');
    const first = queue.run('sign-up', running.work, 'a');
    const waiting = [queue.run('sign-up', job('b-2'), 'b'), queue.run('sign-up', job('a-2'), 'a'), queue.run('sign-up', job('newcomer'), 'new')];
    running.finish();
    await Promise.all([first, ...waiting]);
    // The newcomer first (never served), then b (served before a's latest), then a; equals keep their order.
    expect(order).toEqual(['a-1', 'b-1', 'newcomer', 'b-2', 'a-2']);
  });

  it('bounds the password-change line on its own, with a 503 naming it', async () => {
    const queue = new HashQueue({ concurrent: 1, queued: { 'sign-in': 1, 'sign-up': 1, 'password-change': 1 } });
    const running = held('running');
    const first = queue.run('sign-in', running.work);
    const waiting = queue.run('password-change', async () => 'change');
    await expect(queue.run('password-change', async () => 'refused')).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('password changes'),
    });
    running.finish();
    expect(await Promise.all([first, waiting])).toEqual(['running', 'change']);
  });

  it(`bounds sign-in on the web application: ${CONCURRENT_HASHES} hashing, ${QUEUED_HASHES} waiting, the rest answered 503 as the account spec documents`, async () => {
    // Limits far out of reach: this is about the queue (each sign-in in flight holds an attempt of the account's count).
    const limits = {
      ...readLimits(accountSpec, 'account').signIn,
      failuresPerAccount: 1_000,
      failuresPerClient: 1_000,
      successesPerAccount: 1_000,
      successesPerClient: 1_000,
    };
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

  it('lets a sign-in through a flood of sign-ups from many addresses, each inside its own limits: sign-ins go first', async () => {
    const t = await createTestWebApp({ clientAddress: (c) => c.req.header('x-test-client') ?? 'in-process' });
    await t.signUp('ada');
    const post = async (path: string, body: unknown, client: string) => {
      const response = await t.app.request(`http://127.0.0.1:3001/api${path}`, {
        method: 'POST',
        headers: {
          Host: '127.0.0.1:3001',
          Origin: 'http://127.0.0.1:3001',
          'Sec-Fetch-Site': 'same-origin',
          'Content-Type': 'application/json',
          'X-Test-Client': client,
        },
        body: JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: await response.text() };
    };
    // Twenty-four clients, each from its own address and inside its request budget, signing up again as soon as they
    // are answered (at once after a 503), as the flood of issue 20 did: the hashing thread is always busy and the
    // line always full.
    let flooding = true;
    const statuses: number[] = [];
    const flood = Array.from({ length: 24 }, async (_, client) => {
      for (let account = 0; flooding; ) {
        const { status } = await post('/users', { name: `flood-${client}-${account}`, password: PASSWORD }, `10.6.0.${client}`);
        statuses.push(status);
        if (status === 201) account++;
        else if (status !== 503) return;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const signIns: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      signIns.push((await post('/session', { name: 'ada', password: PASSWORD }, '10.7.0.1')).status);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    flooding = false;
    await Promise.all(flood);
    // Before sign-ins had their own line, most of these were refused with 503 (7 to 11 of 12 in the issue).
    expect(signIns).toEqual(Array.from({ length: 10 }, () => 200));
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
  });
});
