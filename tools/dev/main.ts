/**
 * `npm run dev`: the server, restarted on every save of the spec or of `src/` once
 * the spec lints, its types are regenerated and the code typechecks; otherwise it
 * says what broke and keeps the last good server. Ctrl-C stops it all.
 * PORT (default 3000), LOG_LEVEL (default info) and the server's other variables pass through.
 */
import { Command } from 'commander';
import { projectRoot, readContractPaths } from '../../src/contract/project.js';
import { DevLoop } from './dev-loop.js';

new Command('dev')
  .description('Watch the spec and src/: lint, regenerate types, typecheck, restart the server, and say what broke.')
  .addHelpText('after', '\nEnvironment: PORT (default 3000), LOG_LEVEL (default info), and every variable the server reads.')
  .showHelpAfterError()
  .parse();

const loop = new DevLoop({
  root: projectRoot,
  paths: readContractPaths(),
  // Every variable of this process passes on to the server; startServer's defaults for a harness
  // (NODE_ENV=production, HOST=127.0.0.1, PORT=0) give way to what this process has, set or not.
  // The same two ports as `npm start` when neither is set (the server gives a set PORT a free web port otherwise).
  serverEnv: {
    NODE_ENV: process.env['NODE_ENV'],
    HOST: process.env['HOST'],
    PORT: process.env['PORT'] ?? '3000',
    ...(process.env['PORT'] === undefined && process.env['WEB_PORT'] === undefined && { WEB_PORT: '3001' }),
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'info',
  },
  say: (line) => process.stdout.write(`[dev] ${line}\n`),
  forward: (text) => process.stdout.write(text),
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`[dev] ${signal}: stopping the server and the watchers\n`);
  await loop.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('uncaughtException', (error) => {
  process.stderr.write(`[dev] crashed: ${error.stack ?? error.message}\n`);
  void loop.stop().finally(() => process.exit(1));
});

await loop.start();
