/**
 * The stateful phase against a small real CRUD implementation (`fixtures/crud/`), in-process: with no
 * fault the sequence create → read → rename → read → delete → read passes; a planted use-after-free
 * (a deleted thing still readable) and a rename that does not rename are each found, by name.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/spec.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { CRUD_SPEC_PATH, CRUD_TOKEN, type CrudOptions, crudApi } from './fixtures/crud/server.js';

const spec = loadSpec(CRUD_SPEC_PATH);
/** The same spec with an OpenAPI link from the create's answer to the read of what it made. */
const linked = structuredClone(spec);
const created = (linked.paths['/things'] as { post: { responses: Record<string, Record<string, unknown>> } }).post.responses['201'];
if (created) created['links'] = { GetThing: { operationId: 'getThing', parameters: { thingId: '$response.body#/id' } } };

function suite(options: CrudOptions, allowWrites = true, document = spec): Promise<SuiteReport> {
  return runContractSuite({ baseUrl: 'http://127.0.0.1:9', token: CRUD_TOKEN, spec: document, fetch: crudApi(options), allowWrites, stateful: true });
}

const lifecycle = (report: SuiteReport) => report.results.find((result) => result.id === 'createThing positive stateful lifecycle');
const failures = (report: SuiteReport) =>
  report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);

describe('the stateful phase on a CRUD implementation', () => {
  it('follows create → read → rename → read → delete → read and finds nothing wrong in a correct implementation', async () => {
    const report = await suite({});
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(lifecycle(report)?.outcome).toBe('pass');
    expect(lifecycle(report)?.note).toMatch(/^created thg_\w+ → renameThing 200 → deleteThing 204 → gone$/);
    // The derived positive cases of the writes leave them to the phase, which sends each once.
    const create = report.results.find((result) => result.id === 'createThing positive example kettle');
    expect(create?.note).toMatch(/sent by the stateful phase instead/);
  });

  it('finds a planted use-after-free: a deleted thing still readable', async () => {
    const report = await suite({ useAfterFree: true });
    const result = lifecycle(report);
    expect(result?.outcome).toBe('fail');
    expect(result?.findings.map((finding) => finding.message).join('\n')).toMatch(/use after free: deleteThing answered 204, but getThing still finds thg_\w+/);
    expect(result?.curl).toMatch(/^curl -i -X GET 'http:\/\/127\.0\.0\.1:9\/things\/thg_\w+'/);
  });

  it('finds a rename that answers with the new name but keeps the old one', async () => {
    const report = await suite({ renameIgnored: true });
    const messages = lifecycle(report)
      ?.findings.map((finding) => finding.message)
      .join('\n');
    expect(messages).toMatch(/renameThing was sent name "[^"]+", but thg_\w+ reads back name "Kettle"/);
  });

  it('finds a create that drops an optional field it was sent, which the read of the thing declares', async () => {
    const report = await suite({ noteDropped: true });
    expect(lifecycle(report)?.outcome).toBe('fail');
    expect(
      lifecycle(report)
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/createThing was sent note "By the sink", but thg_\w+ reads back no note/);
  });

  it('follows an OpenAPI link, and finds a create whose answer points to nothing that can be read', async () => {
    const link = (report: SuiteReport) => report.results.find((result) => result.id === 'createThing positive stateful link GetThing');
    const good = await suite({}, true, linked);
    expect(link(good)?.outcome).toBe('pass');
    expect(link(good)?.note).toBe('followed link GetThing: createThing → getThing');
    const forgetful = await suite({ createForgotten: true }, true, linked);
    expect(
      link(forgetful)
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/link GetThing: getThing answered 404 for what createThing answered/);
    expect(
      lifecycle(forgetful)
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/createThing answered 201, but getThing does not find thg_\w+/);
  });

  it('sends no write without --allow-writes', async () => {
    const report = await suite({ useAfterFree: true }, false);
    expect(lifecycle(report)).toBeUndefined();
    expect(failures(report)).toEqual([]);
  });
});
