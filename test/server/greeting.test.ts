/**
 * What the server prints once it listens: over plain HTTP it says where the user sees it that cookies are shared by
 * every server on the host (issue 33: cookie tossing over plain HTTP is stated, not only in the docs), and never over
 * HTTPS.
 */
import { describe, expect, it } from 'vitest';
import { greeting } from '../../src/server/greeting.js';

const facts = {
  build: { version: '1.0.0', commit: '0123456789abcdef', schemaVersion: 10, instanceId: 'x' },
  url: 'http://127.0.0.1:3000',
  webUrl: 'http://127.0.0.1:3001',
  opsUrl: undefined,
  database: 'data/api.sqlite',
  empty: false,
  inMemory: false,
  shared: false,
};

describe('the greeting', () => {
  it('warns over plain HTTP that every server on the host can read and set its cookies, and says what to set', () => {
    const text = greeting({ ...facts, plainHttp: true });
    expect(text).toContain('Over plain HTTP every server on this host can read its cookies and set its own');
    expect(text).toContain('set WEB_ORIGIN to an https origin');
  });

  it('says nothing of it over HTTPS', () => {
    expect(greeting({ ...facts, webUrl: 'https://keys.example.com', plainHttp: false })).not.toContain('plain HTTP');
  });
});
