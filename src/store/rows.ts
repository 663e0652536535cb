import type { SessionRecord } from './store.js';

/** A session row joined with its user, flat, as both engines select it; `toSession` nests the user. */
export type SessionRow = Omit<SessionRecord, 'user'> & { userId: string; userName: string; userCreatedAt: string };

/** The fields a session query selects, each engine naming its own column expression for each. */
export type SessionColumns = Record<Exclude<keyof SessionRecord, 'user'> | 'userId' | 'userName' | 'userCreatedAt', string>;

export function toSession({ userId, userName, userCreatedAt, ...session }: SessionRow): SessionRecord {
  return { ...session, user: { id: userId, name: userName, createdAt: userCreatedAt } };
}

/** `column AS "field", ...`: rows come back shaped as the type the columns were checked against. */
export function selectList(columns: Readonly<Record<string, string>>): string {
  return Object.entries(columns)
    .map(([field, column]) => `${column} AS "${field}"`)
    .join(', ');
}
