/**
 * Ownership learned, not guessed (issue 31, point 3), on the pets reference server (integer ids, no `*Id` schema):
 * the ids the caller's own list answered are the caller's, and another user's request for one must be 403 or 404.
 * The check used to be inverted (it expected a 2xx for bob reading pet 1, and so passed a BOLA bug).
 */
import { describe, expect, it } from 'vitest';
import type { SuiteReport } from '../../src/contract-suite/run.js';
import { runContractSuite } from '../../src/contract-suite/run.js';
import { readSpecSource } from '../../src/contract-suite/spec/spec-source.js';
import { PETS_SPEC, PETS_USERS, type PetsBug, petsServer } from './reference/pets.js';

async function suite(bug?: PetsBug, options: { unmarked?: boolean } = {}): Promise<SuiteReport> {
  const source = await readSpecSource(PETS_SPEC);
  // Without the mark, only another user's own list can show that the lists are not kept apart.
  if (options.unmarked) delete (source.spec.paths['/pets'] as { get: Record<string, unknown> }).get['x-own-list'];
  return runContractSuite({
    spec: source.spec,
    foreign: { unknownFormats: source.unknownFormats, notes: source.notes, openapi: source.version },
    baseUrl: 'http://pets.test',
    fetch: await petsServer(bug),
    token: PETS_USERS.alice,
    otherToken: PETS_USERS.bob,
  });
}

const otherUserRead = (report: SuiteReport) => report.results.find((result) => result.id === 'getPet positive other-user');

describe("another user's credential on what the caller owns", () => {
  it('expects 403 or 404 for a pet the caller’s own list showed, and gets 404 from a correct server', async () => {
    const report = await suite();
    expect(otherUserRead(report)).toMatchObject({ outcome: 'pass', status: 404, request: { url: 'http://pets.test/pets/1' } });
    expect(report.results.filter((result) => result.outcome === 'fail')).toEqual([]);
  });

  it('finds another user reading the caller’s pet, with the id a list gave (an integer, no *Id schema)', async () => {
    const report = await suite('bola-read');
    expect(otherUserRead(report)?.outcome).toBe('fail');
    expect(otherUserRead(report)?.findings.map((finding) => finding.message)).toContain(
      "another user's request for the caller's 1 was answered 200, not 403 or 404",
    );
  });

  it("finds another user's list showing the caller's pets, by the ids the caller's own list showed", async () => {
    const report = await suite('bola-list', { unmarked: true });
    const list = report.results.find((result) => result.id === 'listPets positive other-user');
    expect(list?.findings.map((finding) => finding.message)).toEqual(["another user's listPets shows 3 of the caller's own items (1, 2, 3)"]);
  });

  it('finds a list marked x-own-list that shows another owner’s items, with the caller’s credential alone', async () => {
    const report = await suite('bola-list');
    const list = report.results.find((result) => result.id === 'listPets positive minimal-request');
    expect(list?.findings.map((finding) => finding.message).join('\n')).toMatch(/own list \(x-own-list: owner\) holds items of 2 owners/);
  });
});
