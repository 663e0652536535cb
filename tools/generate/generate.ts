import { Command } from 'commander';
import { dirname, extname } from 'node:path';
import { readContracts } from '../../src/contract/project.js';
import { displayPath } from '../check/display-path.js';
import { watchFolders } from './watch-files.js';
import { writeTypes } from './write-types.js';

const options = new Command('generate')
  .description('Compile every spec redocly.yaml lists to TypeScript types (openapi-typescript), where redocly.yaml says.')
  .option('--watch', 'regenerate on every save of a spec, until Ctrl-C')
  .parse()
  .opts<{ watch?: boolean }>();

const SPEC_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const contracts = readContracts();

async function generateOne(paths: { spec: string; types: string }): Promise<boolean> {
  const typesName = displayPath(paths.types);
  const specName = displayPath(paths.spec);
  const started = performance.now();
  try {
    const { changed } = await writeTypes(paths);
    const took = `${((performance.now() - started) / 1000).toFixed(2)} s`;
    console.log(changed ? `wrote ${typesName} from ${specName} in ${took}` : `${typesName} is already up to date with ${specName}`);
    return true;
  } catch (error) {
    console.error(`could not compile ${specName}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

async function generate(): Promise<boolean> {
  let ok = true;
  for (const contract of contracts) ok = (await generateOne(contract)) && ok;
  return ok;
}

const ok = await generate();
if (!options.watch) {
  process.exitCode = ok ? 0 : 1;
} else {
  const folders = [...new Set(contracts.map((contract) => dirname(contract.spec)))];
  // One run at a time; a save during a run is picked up by one more run after it.
  let running: Promise<unknown> = Promise.resolve();
  const watcher = await watchFolders(folders, (changed) => {
    // Editors' temp and swap files come and go beside the spec; only a YAML or JSON save is a spec change.
    if (changed.some((file) => SPEC_EXTENSIONS.has(extname(file)))) running = running.then(generate);
  });
  // Said once the watch is set up: a save from now on is seen.
  console.log(`watching ${folders.map((folder) => `${displayPath(folder)}/`).join(', ')} for changes; Ctrl-C stops`);
  process.once('SIGINT', () => void watcher.close());
  process.once('SIGTERM', () => void watcher.close());
}
