/** `npm run contract -- --base-url <url> --token <key>`: see `command.ts`. */
import { runContract } from './command.js';

process.exitCode = await runContract(process.argv.slice(2), undefined, process.stderr.isTTY === true);
