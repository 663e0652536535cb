import { inject } from 'vitest';
import type { ServiceName, SharedServices } from '../services/shared-services.js';

const asked = new Map<ServiceName, Promise<unknown>>();

/**
 * A process the run shares (`test/services/shared-services.ts`): started by the run's broker the first
 * time any file asks for it, then the same one for every file. Files in one worker ask once.
 */
export function sharedService<Name extends ServiceName>(name: Name): Promise<SharedServices[Name]> {
  let answer = asked.get(name);
  if (!answer) {
    answer = fetch(`${inject('services')}/${name}`, { signal: AbortSignal.timeout(120_000) }).then(async (response) => {
      const text = await response.text();
      if (!response.ok) throw new Error(`the shared ${name} did not start:\n${text}`);
      return JSON.parse(text) as SharedServices[Name];
    });
    asked.set(name, answer);
  }
  return answer as Promise<SharedServices[Name]>;
}
