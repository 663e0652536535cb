import { generateApiKey } from '../keys/api-key.js';
import type { Store } from '../store/store.js';

const DEMO_TITLES = [
  'Quarterly report draft',
  'Meeting notes',
  'Travel checklist',
  'Reading list',
  'Onboarding guide',
  'Budget overview',
  'Release plan',
  'Interview questions',
  'Design review',
  'Retrospective',
  'Conference talk outline',
  'Weekly status',
];

/**
 * Fills an empty database with a demo user, some items of their own, and two other
 * users who share items with them, then makes a demo key. Returns the key, which
 * is shown once and never stored.
 */
export async function seedDemo(store: Store, now: number): Promise<{ userName: string; key: string }> {
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const demo = await store.createUser('demo', at(10_000));
  for (const [index, title] of DEMO_TITLES.entries()) await store.createItem(demo.id, title, at(9_000 - index * 60));
  for (const [name, titles] of [
    ['alice', ['Team roadmap', 'Shared reading list', 'Holiday rota']],
    ['bob', ['Architecture sketch', 'Incident review', 'Private drafts']],
  ] as const) {
    const user = await store.createUser(name, at(10_000));
    for (const [index, title] of titles.entries()) {
      const item = await store.createItem(user.id, title, at(8_000 - index * 45 - name.length));
      // Each other user keeps one item to themselves: the demo user must never see it.
      if (index < titles.length - 1) await store.shareItem(item.id, demo.id, at(7_000));
    }
  }
  const { key, digest, hint } = generateApiKey();
  await store.createKey(demo.id, digest, hint, new Date(now).toISOString(), {
    name: 'Demo key',
    expiresAt: new Date(now + 30 * 24 * 3_600_000).toISOString(),
    source: 'cli',
  });
  return { userName: demo.name, key };
}
