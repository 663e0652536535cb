/**
 * Debian's buildah, as the image tools drive it. `--isolation chroot` on every build and run: the OCI
 * runtime (crun) cannot start containers on this kind of machine (its `setrlimit` is refused), and a chroot
 * needs none. Its runs share the host's network, so a server in the image listens on this machine's loopback.
 */
import { type CommandResult, runCommand } from '../process/run-command.js';

/** buildah with `args`, to its end; throws with its output when it fails. */
export async function buildah(args: readonly string[], options: { timeoutMs?: number; cwd?: string } = {}): Promise<CommandResult> {
  const result = await runCommand(['buildah', ...args], { timeoutMs: options.timeoutMs ?? 120_000, ...(options.cwd !== undefined && { cwd: options.cwd }) });
  if (result.code !== 0)
    throw new Error(`buildah ${args.join(' ')} failed (exit ${result.code ?? result.signal}):\n${(result.stdout + result.stderr).slice(-4000)}`);
  return result;
}

/** Whether the local store holds an image by that name. */
export async function imageExists(name: string): Promise<boolean> {
  return (await imageId(name)) !== undefined;
}

/** The id of the image by that name in the local store; undefined when there is none. */
export async function imageId(name: string): Promise<string | undefined> {
  const inspected = await runCommand(['buildah', 'inspect', '--type', 'image', '--format', '{{.FromImageID}}', name], { timeoutMs: 30_000 });
  return inspected.code === 0 ? inspected.stdout.trim() : undefined;
}

/** The image's size as its store reports it (e.g. `212 MB`). */
export async function imageSize(name: string): Promise<string> {
  return (await buildah(['images', '--format', '{{.Size}}', name])).stdout.trim().split('\n')[0] ?? '';
}
