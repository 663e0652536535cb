import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { readContractPaths } from '../../src/contract/project.js';
import { loadSpec } from '../../src/contract/spec.js';
import { withCodeSamples } from '../../src/docs/build.js';
import { codeSamples, defaultServerUrl, sampleRequest, tsLiteral } from '../../src/docs/code-samples.js';

const contracts = ['main', 'account'].map((name) => {
  const spec = loadSpec(readContractPaths(undefined, name).spec);
  return { name, spec, operations: readOperations(spec) };
});
const [main, account] = contracts as [(typeof contracts)[number], (typeof contracts)[number]];
const operation = (contract: typeof main, operationId: string) => {
  const found = contract.operations.find((candidate) => candidate.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
};
const samples = (contract: typeof main, operationId: string) =>
  Object.fromEntries(codeSamples(contract.spec, contract.name, operation(contract, operationId)).map((sample) => [sample.label, sample.source]));

describe('the request samples of the docs', () => {
  it('use the first server with its variables at their defaults', () => {
    expect(defaultServerUrl(main.spec)).toBe('http://127.0.0.1:3000');
    expect(defaultServerUrl(account.spec)).toBe('http://127.0.0.1:3001/api');
  });

  it.each([
    {
      given: 'a POST with a body (the first named request example)',
      contract: main,
      operationId: 'listOwnItems',
      curl: `curl -X POST http://127.0.0.1:3000/ \\\n  -H "Authorization: Bearer $API_KEY" \\\n  -H 'Content-Type: application/json' \\\n  -d '{"sort":"asc"}'\n`,
      client: "const { data, error } = await api.POST('/', { body: { sort: 'asc' } });",
    },
    {
      given: 'a GET with query settings (no cursor: only an earlier answer gives one)',
      contract: main,
      operationId: 'listSharedItemsByQuery',
      curl: `curl 'http://127.0.0.1:3000/shared?sort=asc&limit=2' \\\n  -H "Authorization: Bearer $API_KEY"\n`,
      client: "const { data, error } = await api.GET('/shared', { params: { query: { sort: 'asc', limit: 2 } } });",
    },
    {
      given: 'a path parameter and the session cookie the account spec names',
      contract: account,
      operationId: 'revokeKey',
      curl: 'curl -X POST http://127.0.0.1:3001/api/keys/key_7h3k9m2p4r6t8v0x/revoke \\\n  -b "__Host-session=$SESSION"\n',
      client: "const { data, error } = await account.POST('/keys/{keyId}/revoke', { params: { path: { keyId: 'key_7h3k9m2p4r6t8v0x' } } });",
    },
    {
      given: 'an operation without security (no credential) and a body with a quote-free string',
      contract: account,
      operationId: 'signUp',
      curl: `curl -X POST http://127.0.0.1:3001/api/users \\\n  -H 'Content-Type: application/json' \\\n  -d '{"name":"ada","password":"granite tulip seventy otter"}'\n`,
      client: "const { data, error } = await account.POST('/users', { body: { name: 'ada', password: 'granite tulip seventy otter' } });",
    },
  ])('$given', ({ contract, operationId, curl, client }) => {
    const shown = samples(contract, operationId);
    expect(shown['curl']).toBe(curl);
    expect(shown['Typed client']).toContain(client);
  });

  it('import the typed client from the package a frontend installs', () => {
    expect(samples(main, 'listOwnItems')['Typed client']).toMatch(
      /^import \{ createApiClient \} from '@bearer-list-api\/client';\n\nconst api = createApiClient\(\{ baseUrl: 'http:\/\/127\.0\.0\.1:3000', apiKey: API_KEY \}\);/,
    );
    expect(samples(account, 'listKeys')['Typed client']).toMatch(/^import \{ createAccountClient \} from '@bearer-list-api\/client\/account';/);
  });

  it('are given to every operation of both contracts', () => {
    for (const contract of contracts) {
      const rendered = withCodeSamples(contract.spec, contract.name);
      for (const { path, method } of contract.operations) {
        const samplesOf = (rendered.paths[path] as Record<string, { 'x-codeSamples'?: { label: string }[] }>)[method.toLowerCase()]?.['x-codeSamples'];
        expect(
          samplesOf?.map((sample) => sample.label),
          `${method} ${path}`,
        ).toEqual(['curl', 'Typed client']);
      }
      expect(contract.spec, 'the spec itself is left as it is').not.toHaveProperty(['paths', '/', 'post', 'x-codeSamples']);
    }
  });

  it("say in each page's introduction how to install the package the samples import", () => {
    for (const contract of contracts) {
      const description = String((withCodeSamples(contract.spec, contract.name)['info'] as { description: string }).description);
      expect(description, contract.name).toMatch(
        /## Install the typed client\n[\s\S]*npm run build:client[\s\S]*npm install <path to the repository>\/dist\/bearer-list-api-client-\d+\.\d+\.\d+\.tgz/,
      );
      expect(description).toContain(contract.name === 'main' ? '`@bearer-list-api/client`' : '`@bearer-list-api/client/account`');
      expect((contract.spec['info'] as { description?: string }).description ?? '', 'the spec itself is left as it is').not.toContain(
        '## Install the typed client',
      );
    }
  });

  it('refuse an operation whose required parameter has no example to show', () => {
    const revoke = operation(account, 'revokeKey');
    const withoutExample = { ...revoke, parameters: revoke.parameters.map(({ example: _, ...parameter }) => parameter) };
    expect(() => sampleRequest(account.spec, withoutExample)).toThrow('the required path parameter keyId has no example to show');
  });

  it.each([
    { given: { sort: 'asc', limit: 2 }, want: "{ sort: 'asc', limit: 2 }" },
    { given: { 'x-odd key': "it's", list: [1, null, true] }, want: "{ 'x-odd key': 'it\\'s', list: [1, null, true] }" },
    { given: {}, want: '{}' },
  ])('write JSON as a TypeScript literal: $want', ({ given, want }) => {
    expect(tsLiteral(given)).toBe(want);
  });
});
