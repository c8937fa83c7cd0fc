/**
 * What a participant's facts become when an analysis's list is written after another write it did not
 * see (contract guide, "Memory"), pure. The LLM was given `base` and answered `ours`, the whole list as it
 * should be; meanwhile `theirs` was written: another session's analysis of the same participant, after a
 * deletion of `base` or not.
 */
import { keptFacts } from "../analysis/analysis-answer.js";

const key = (fact: string) => fact.toLowerCase();

/**
 * Ours first (the latest conversation's word on what matters), then what the other write added that ours
 * does not say, bounded as any list is. When `base` was forgotten since (deleted, then maybe written
 * anew), the deletion wins over everything `base` held: what the participant asked to be forgotten is not
 * written back; only what this session newly said is kept, with whatever was kept since.
 */
export function mergedFacts(base: readonly string[], ours: readonly string[], theirs: readonly string[], baseForgotten: boolean): string[] {
  const before = new Set(base.map(key));
  const isNew = (fact: string) => !before.has(key(fact));
  return baseForgotten ? keptFacts([...ours.filter(isNew), ...theirs]) : keptFacts([...ours, ...theirs.filter(isNew)]);
}
