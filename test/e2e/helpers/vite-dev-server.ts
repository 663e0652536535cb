/**
 * A real Vite dev server, as a frontend developer runs one beside the API: a folder of its own with a
 * `vite.config.ts` and a tiny page, started with `vite --port 0` by the project's launcher, stopped by its pid.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../../src/contract/project.js';
import { type LaunchedProcess, launch } from '../../../tools/process/launch.js';
import { waitForOutput } from '../../../tools/process/ready.js';

const VITE = join(projectRoot, 'node_modules', 'vite', 'bin', 'vite.js');

export interface ViteDevServer {
  /** The page's origin, e.g. `http://localhost:43215`: `localhost`, as Vite serves it by default. */
  readonly url: string;
  readonly process: LaunchedProcess;
  /** Stops Vite (and only it) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * A page that signs up through the dev server's `/api` proxy, reads the session back and creates a key, and
 * writes each answer's status (and a refusal's `detail`) into `#result`, one line per call: plain `fetch`,
 * as any client library ends up calling it.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Through the proxy</title></head>
  <body>
    <form id="sign-up">
      <label>User name <input name="name" autocomplete="username"></label>
      <label>Password <input name="password" type="password" autocomplete="new-password"></label>
      <button>Create account</button>
    </form>
    <pre id="result" aria-live="polite"></pre>
    <script type="module" src="/main.js"></script>
  </body>
</html>
`;

const SCRIPT = `const result = document.querySelector('#result');
async function call(method, path, body) {
  const response = await fetch('/api' + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  result.textContent += method + ' ' + path + ' ' + response.status + (response.ok ? '' : ' ' + json.detail) + '\\n';
  return json;
}
document.querySelector('#sign-up').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  await call('POST', '/users', { name: form.get('name'), password: form.get('password') });
  const session = await call('GET', '/session');
  result.textContent += 'signed in as ' + (session.user ? session.user.name : '(nobody)') + '\\n';
  await call('POST', '/keys', { name: 'through-vite' });
  result.textContent += 'done\\n';
});
`;

/** Starts Vite on a free port with `config` as its `vite.config.ts`; fails with the install command when Vite is missing. */
export async function startViteDevServer(config: string): Promise<ViteDevServer> {
  if (!existsSync(VITE)) throw new Error(`no Vite at ${VITE}: install the project's with \`npm ci\` (it is the devDependency vite@8.3.8)`);
  const folder = mkdtempSync(join(tmpdir(), 'vite-proxy-'));
  writeFileSync(join(folder, 'vite.config.ts'), config);
  writeFileSync(join(folder, 'index.html'), PAGE);
  writeFileSync(join(folder, 'main.js'), SCRIPT);
  // The config imports 'vite' as a project's would; its own node_modules (not a link to the project's) keeps Vite's cache in this folder.
  mkdirSync(join(folder, 'node_modules'));
  symlinkSync(join(projectRoot, 'node_modules', 'vite'), join(folder, 'node_modules', 'vite'), 'dir');
  const vite = launch([process.execPath, VITE, '--port', '0', '--strictPort', '--clearScreen', 'false'], {
    cwd: folder,
    env: { NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  const stop = async () => {
    await vite.stop();
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    const [, url = ''] = await waitForOutput(vite, /Local:\s+(http:\/\/\S+?)\/?$/m, { timeoutMs: 30_000 });
    return { url, process: vite, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
