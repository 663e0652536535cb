import { describe, expect, it } from 'vitest';
import { clientBudgetKey } from '../../src/http/client-key.js';

describe('the key a per-client budget counts a request against', () => {
  it.each([
    { address: '203.0.113.7', want: '203.0.113.7' },
    { address: 'in-process', want: 'in-process' },
    { address: '::ffff:203.0.113.7', want: '203.0.113.7' },
    { address: '2001:db8:1:2:aaaa::1', want: '2001:db8:1:2::/64' },
    { address: '2001:db8:1:2:ffff:ffff:ffff:fffe', want: '2001:db8:1:2::/64' },
    { address: '2001:db8:1:3::1', want: '2001:db8:1:3::/64' },
    { address: 'not-an-address:x', want: 'not-an-address:x' },
  ])('$address counts as $want', ({ address, want }) => {
    expect(clientBudgetKey(address)).toBe(want);
  });

  it('takes the configured prefix, and 128 as the address itself', () => {
    expect(clientBudgetKey('2001:db8:1:2:aaaa::1', 48)).toBe('2001:db8:1::/48');
    expect(clientBudgetKey('2001:db8:1:2:aaaa::1', 128)).toBe('2001:db8:1:2:aaaa:0:0:1');
  });
});
