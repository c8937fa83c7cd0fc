/** What the memory stores do alike with their maps. */

/** The memory stores' nested maps: the value under `key`, made (and kept) the first time it is asked for. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * The memory stores' version of the Redis `claimDue` script: up to `max` members due by `nowMs`, earliest
 * first, each pushed to the end of this claim's lease.
 */
export function claimDue(due: Map<string, number>, nowMs: number, leaseMs: number, max: number): string[] {
  const claimed = [...due]
    .filter(([, at]) => at <= nowMs)
    .sort(([, a], [, b]) => a - b)
    .slice(0, max)
    .map(([member]) => member);
  for (const member of claimed) due.set(member, nowMs + leaseMs);
  return claimed;
}
