import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readContracts } from '../../../src/contract/project.js';
import { loadSpec, type OpenApiDocument } from '../../../src/contract/spec.js';
import { clientManifest, clientVersion, specHash } from '../../../tools/client-package/client-package.js';

/** SemVer 2.0.0's own regular expression (semver.org, "Is there a suggested regular expression"). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const contracts = (): OpenApiDocument[] => readContracts().map((contract) => loadSpec(contract.spec));

describe("the client package's version", () => {
  it("is the public contract's info.version with the contracts' hash as a pre-release, and valid SemVer", () => {
    const info = loadSpec()['info'] as { version: string };
    const version = clientVersion();
    expect(version).toMatch(new RegExp(`^${info.version.replaceAll('.', '\\.')}-spec\\.[0-9a-f]{8,}$`));
    expect(version).toMatch(SEMVER);
    expect(clientManifest()['version']).toBe(version);
  });

  it('changes with any change of either contract, and only then', () => {
    const documents = contracts();
    const version = clientVersion(documents);
    expect(clientVersion(contracts())).toBe(version);
    const [main, account] = documents as [OpenApiDocument, OpenApiDocument];
    const anotherExample = structuredClone(account);
    (anotherExample['info'] as { description: string }).description += ' One more sentence.';
    expect(clientVersion([main, anotherExample])).not.toBe(version);
    const anotherPublic = structuredClone(main);
    (anotherPublic['paths'] as Record<string, unknown>)['/added'] = { get: { responses: { '204': { description: 'nothing' } } } };
    expect(clientVersion([anotherPublic, account])).not.toBe(version);
    // The same contract written out again in another YAML layout is the same contract.
    const relaid = parse(stringify(account, { indent: 4, lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE' })) as OpenApiDocument;
    expect(clientVersion([main, relaid])).toBe(version);
  });

  it("keeps a contract's own pre-release and build metadata", () => {
    const [main, account] = contracts() as [OpenApiDocument, OpenApiDocument];
    const at = (version: string) => clientVersion([{ ...main, info: { ...(main['info'] as object), version } } as OpenApiDocument, account]);
    expect(at('2.0.0-beta.1')).toMatch(/^2\.0\.0-beta\.1\.spec\.[0-9a-f]{8,}$/);
    expect(at('2.0.0+build.7')).toMatch(/^2\.0\.0-spec\.[0-9a-f]{8,}\+build\.7$/);
    for (const version of [at('2.0.0-beta.1'), at('2.0.0+build.7')]) expect(version).toMatch(SEMVER);
  });

  it('never makes a numeric pre-release identifier with a leading zero (SemVer forbids it), whatever the hash', () => {
    let allDigits = 0;
    for (let index = 0; index < 3000; index += 1) {
      const hash = specHash([{ openapi: '3.1.0', info: { title: 't', version: String(index) }, paths: {}, components: {} } as OpenApiDocument]);
      expect(`1.0.0-spec.${hash}`).toMatch(SEMVER);
      expect(hash).toMatch(/^[0-9a-f]{8,}$/);
      if (hash.length > 8) {
        allDigits += 1;
        expect(hash).toMatch(/^\d{8,}[a-f]$|^\d{64}x$/);
      }
    }
    // About 2 % of hashes start with 8 digits: the lengthened form was exercised.
    expect(allDigits).toBeGreaterThan(0);
  });
});
