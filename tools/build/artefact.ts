import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/**
 * What a production install is made of, after `npm run build`: the compiled server, CLIs and
 * prebuilt pages (`dist/`), the launcher (`bin/`), the specs the server reads at run time
 * (`openapi/`, found through `redocly.yaml`, which also marks the project's root), and what
 * `npm ci --omit=dev` installs from (the manifests and the lock; the tools' manifest because the
 * lock names its workspace). No `src/`, no `tools/` code: nothing there runs in production.
 * The Dockerfile's final stage copies exactly these (test/build/artefact.test.ts holds it to this list).
 */
export const ARTEFACT_FILES = ['package.json', 'package-lock.json', 'redocly.yaml', 'openapi', 'dist/src', 'dist/pages', 'bin', 'tools/package.json'] as const;

/** Copies the artefact's files from the project (built) into `target`, for a production install there; `without` leaves some out. */
export function copyArtefact(target: string, options: { without?: readonly string[] } = {}): void {
  for (const entry of ARTEFACT_FILES.filter((file) => !options.without?.includes(file))) {
    mkdirSync(dirname(join(target, entry)), { recursive: true });
    cpSync(join(projectRoot, entry), join(target, entry), { recursive: true });
  }
}
