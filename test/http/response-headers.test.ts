import { describe, expect, it } from 'vitest';
import { KERNEL_HEADERS } from '../../src/contract/types.js';
import { responseHeaders, SECURITY_HEADERS } from '../../src/http/response-headers.js';

describe('the headers the kernel writes itself', () => {
  it('are the ones a handler is not asked for by its typed result (KERNEL_HEADERS), beside the security headers and the content type', () => {
    const written = Object.keys(responseHeaders('application/json', 'an-id', { allowed: true, limit: 10, remaining: 9, resetSeconds: 60 }));
    const own = written.filter((name) => name !== 'content-type' && !(name in SECURITY_HEADERS));
    expect(own.sort()).toEqual([...KERNEL_HEADERS].sort());
  });
});
