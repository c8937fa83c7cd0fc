/**
 * Ends every session the create measurements left open, through the service's own end path in this
 * process, then waits for their session.ended deliveries to drain. Left open, each would have its
 * digital human checked on at DIGITAL_HUMAN_REDISPATCH_S (300 s, its longest) and be cancelled at
 * SESSION_JOIN_TIMEOUT_S (600 s): a full run is longer than both, so that work of a fleet whose agents
 * never come would be charged to whichever section ran then (the LiveKit events' idle service spent
 * three times its usual CPU in a run without this). And their number would reach the account's cap
 * (ACCOUNT_MAX_OPEN_SESSIONS, at most 100 000) and refuse later creates. Ending them starts their
 * transcripts' grace timers, so this waits until those have fired too (about a minute).
 */

import { keyspace, SHARDS } from "@dhs/server/redis-keys";
import type { WebhookReceiver } from "@dhs/testkit";
import { quiet } from "./bench-receiver.js";
import { inParallel } from "./in-parallel.js";
import { STORED_PRINCIPAL, seedService } from "./seed.js";
import { accounts } from "./settings.js";
import type { Stack } from "./stack.js";

export async function endOpenSessions(stack: Stack, receiver: WebhookReceiver): Promise<number> {
  const { sessions, close } = await seedService(stack);
  // The service's key layout, with the default prefix the bench's service runs with.
  const keys = keyspace();
  let ended = 0;
  for (const { accountId } of accounts) {
    const principal = { ...STORED_PRINCIPAL, keyId: "key_bench_cleanup", accountId, account: accountId };
    // The account's open sessions: the set its cap counts.
    const ids = await stack.redis.zrange(keys.open(accountId), "0", "-1");
    await inParallel(ids.length, (i) => sessions.end(principal, ids[i] as string));
    ended += ids.length;
  }
  await close();
  // An end starts its transcript's grace timer (TRANSCRIPT_GRACE_S, 60 s): wait until every timer due
  // by then has fired, or the next section would be charged with tens of thousands of them.
  const graceOver = String(Date.now() + 65_000);
  const shards = Array.from({ length: SHARDS }, (_, shard) => keys.timers(shard));
  const pending = async () =>
    (await Promise.all(shards.map((key) => stack.redis.zcount(key, "-inf", graceOver)))).reduce((a, b) => a + b, 0);
  // Bounded: a run whose sweeper fell behind goes on, and says so, rather than hang.
  const deadline = Date.now() + 180_000;
  let left = await pending();
  while (left > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    left = await pending();
  }
  if (left > 0)
    process.stdout.write(
      `bench: ${left} timers of the ended sessions had not fired after 3 minutes; the next section shares the machine with them\n`,
    );
  await quiet(receiver);
  return ended;
}
