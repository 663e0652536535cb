import type { StoreConfig } from '../config/env.js';
import { openStore } from './open-store.js';
import type { Store } from './store.js';

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

/** The demo's own user. */
export const DEMO_USER = 'demo';

/** Users who share all but the last of their items with the demo user. */
const SHARING_USERS: Record<string, string[]> = {
  alice: ['Team roadmap', 'Shared reading list', 'Holiday rota'],
  bob: ['Architecture sketch', 'Incident review', 'Private drafts'],
};

/** Every user the demo data makes: seeding refuses a database that has any of them. */
export const DEMO_USERS: readonly string[] = [DEMO_USER, ...Object.keys(SHARING_USERS)];

/**
 * Adds the demo data: a user with items of their own, and two other users who share all but
 * one of their items with them (so a listing spans pages and a private item must stay hidden).
 * No key: a live secret is made only when someone asks for one (`npm run keys -- create`), and
 * shown to them alone. Only ever run when asked (`npm run seed`, or a test's setup), never by
 * the server.
 */
export async function seedDemo(store: Store, now: number): Promise<{ userName: string }> {
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const demo = await store.createUser(DEMO_USER, at(10_000));
  for (const [index, title] of DEMO_TITLES.entries()) await store.createItem(demo.id, title, at(9_000 - index * 60));
  for (const [name, titles] of Object.entries(SHARING_USERS)) {
    const user = await store.createUser(name, at(10_000));
    for (const [index, title] of titles.entries()) {
      const item = await store.createItem(user.id, title, at(8_000 - index * 45 - name.length));
      // Each other user keeps one item to themselves: the demo user must never see it.
      if (index < titles.length - 1) await store.shareItem(item.id, demo.id, at(7_000));
    }
  }
  return { userName: demo.name };
}

/** Opens the database `config` names, adds the demo data, and closes it: for harnesses that start a server on demo data. */
export async function seedDemoDatabase(config: StoreConfig, now = Date.now()): Promise<void> {
  const store = await openStore(config);
  try {
    await seedDemo(store, now);
  } finally {
    await store.close();
  }
}
