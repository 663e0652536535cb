/** `npm run keys -- <command>`: see `keys-command.ts`. */
import { runKeys } from './keys-command.js';

process.exitCode = await runKeys(process.argv.slice(2));
