/**
 * `npm test`'s setup file (vitest's `setupFiles`, run before each file of the default project): new password hashes
 * are Argon2id at 1 MiB and one pass, about 1 ms, instead of OWASP's 19 MiB and two passes, about 40 ms, which was
 * most of what the in-process account tests spent. A file about the cost itself (the hash queue's bounds, the stored
 * parameters) sets `ARGON2_OPTIONS` back for itself; processes the tests start, and `npm run test:slow`, never see this.
 */
import { ARGON2_OPTIONS, useHashParametersForTests } from '../../src/account/passwords.js';

useHashParametersForTests({ ...ARGON2_OPTIONS, memoryCost: 1024, timeCost: 1 });
