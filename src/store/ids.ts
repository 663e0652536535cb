import { randomBase62 } from '../keys/api-key.js';

const LOWER_ALPHANUMERIC = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `usr_`/`itm_`/`key_`/`ses_`/`evt_` + 16 random lower-case alphanumerics (about 82 bits), as the spec's id patterns say. */
export function newId(prefix: 'usr' | 'itm' | 'key' | 'ses' | 'evt'): string {
  return `${prefix}_${randomBase62(16, LOWER_ALPHANUMERIC)}`;
}
