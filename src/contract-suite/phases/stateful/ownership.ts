import type { Json } from '../../../contract/spec.js';
import { withField } from '../../case.js';
import type { CaseResult } from '../../result.js';
import { Tally } from '../../tally.js';
import { asCaller, type PhaseContext, phaseCase } from '../phase.js';
import { findById } from './find-by-id.js';
import type { ResourceGroup } from './resource-group.js';
import { step } from './step.js';

const FORBIDDEN = 403;
const NOT_FOUND = 404;

/**
 * What the caller just created is the caller's, whatever its id looks like (an integer, a uuid): another
 * user's credential must get 403 or 404 for it, never a 2xx, and must not find it in that user's own list.
 * Learned from the create's own answer, never guessed from the shape of an id.
 */
export async function otherUserOnCreated(context: PhaseContext, group: ResourceGroup, id: Json, token: string): Promise<CaseResult> {
  const entry = phaseCase(group.read ?? group.create, {
    family: 'other-user',
    key: `created by ${group.create.operation.operationId}`,
    title: `another user neither reads nor lists what ${group.create.operation.operationId} made for the caller`,
  });
  // The other user's answers feed no harvest of the caller's.
  const other = { ...asCaller(context.run, token, '$OTHER_API_KEY'), harvest: new Map() };
  const tally = new Tally(other, entry, { remember: false });
  const sender = { run: other, values: context.values, tally, entry };
  const checked: string[] = [];
  if (group.read) {
    const got = await step(sender, group.read, withField(group.read.baseline, 'path', group.parameter, id), {
      label: `${group.read.operation.operationId} by another user`,
    });
    checked.push(`${group.read.operation.operationId} ${got.status ?? '---'}`);
    if (got.status !== undefined && got.status >= 200 && got.status < 300)
      tally.record(got.exchange, [
        {
          category: 'semantics',
          message: `another user read the caller's ${id} (just created by ${group.create.operation.operationId}): answered ${got.status}, not ${FORBIDDEN} or ${NOT_FOUND}`,
        },
      ]);
  }
  if (group.list) {
    const got = await step(sender, group.list, group.list.baseline, { label: `${group.list.operation.operationId} by another user` });
    checked.push(`${group.list.operation.operationId} ${got.status ?? '---'}`);
    if (got.status !== undefined && got.status < 300 && findById(got.body, id) !== undefined)
      tally.record(got.exchange, [
        {
          category: 'semantics',
          message: `another user's ${group.list.operation.operationId} shows the caller's ${id} (just created by ${group.create.operation.operationId})`,
        },
      ]);
  }
  if (checked.length === 0) return tally.skip(undefined, 'no read of one item and no list to ask with the other credential');
  return tally.result(checked.join('; '));
}
