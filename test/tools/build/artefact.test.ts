/**
 * The artefact's file list is written once (tools/build/artefact.ts); the Dockerfile's final stage, which
 * cannot import it, is held to it here: a file added to the artefact and not to the image fails this test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { ARTEFACT_FILES } from '../../../tools/build/artefact.js';

const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');

/** The sources each `COPY --from=builder` of the final stage (after the last FROM) takes from the builder's /build. */
function finalStageCopies(text: string): string[] {
  const finalStage = text.slice(text.lastIndexOf('\nFROM '));
  return [...finalStage.matchAll(/^COPY --from=builder (.+)$/gm)].flatMap((match) => {
    const paths = (match[1] ?? '').split(/\s+/);
    return paths.slice(0, -1).map((path) => path.replace(/^\/build\//, ''));
  });
}

describe('the Dockerfile', () => {
  it('copies into the final image exactly the artefact, and the pruned node_modules', () => {
    expect(finalStageCopies(dockerfile).sort()).toEqual([...ARTEFACT_FILES, 'node_modules'].sort());
  });

  it('takes its base as a build argument, runs as a user that is not root, and keeps the data folder on a volume', () => {
    expect(dockerfile).toMatch(/^ARG BASE=node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^USER (?!root\b|0\b)\S+$/m);
    expect(dockerfile).toMatch(/^VOLUME \/app\/data$/m);
    expect(dockerfile).toMatch(/^ {2}DATABASE_PATH=\/app\/data\//m);
    expect(dockerfile).toMatch(/^EXPOSE .*\b9464\b/m);
  });
});
