/**
 * Create and get, on bare Express and then on the service with each number of stored sessions
 * (BENCH_STORED): the main table's rows, each with the ratio to bare Express.
 */
import { shares } from "./figures.js";
import { bothOps, type Measured } from "./load.js";
import { seed } from "./seed.js";
import { accounts, CONNECTIONS, DURATION_S, GET_TARGETS, STORED, WARMUP_S } from "./settings.js";
import type { Stack } from "./stack.js";

/**
 * Sessions for the gets, each read with its account's key: at least one per account, and at least
 * GET_TARGETS, so the reads spread over the shards as real ones do (one session would be one slot).
 */
export async function getTargets(stack: Stack): Promise<string[]> {
  const sessionIds: string[] = [];
  for (let i = 0; i < Math.max(GET_TARGETS, accounts.length); i++) {
    const account = accounts[i % accounts.length] as (typeof accounts)[number];
    const made = await fetch(`${stack.serverUrl}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json", "idempotency-key": `bench-get-target-${i}` },
      body: "{}",
    });
    sessionIds.push(((await made.json()) as { id: string }).id);
  }
  return sessionIds;
}

/** Create and get on bare Express, then on the service with each number of stored sessions: the table's rows. */
export async function measureAll(
  stack: Stack,
  sessionIds: readonly string[],
  settle: () => Promise<void>,
): Promise<{ rows: string[][]; bareCreate: Measured }> {
  process.stdout.write(`bench: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s warm-up\n`);
  // Bare Express runs under tsx's launcher: its pid is not the server's, so its CPU is not read.
  const bare = await bothOps(stack.bareUrl, sessionIds);
  const rows: string[][] = [];
  let have = 0; // sessions seeded so far; the benchmark's own creates come on top
  for (const stored of STORED) {
    if (stored > have) {
      process.stdout.write(`bench: storing ${stored - have} more sessions... `);
      process.stdout.write(`${(await seed(stack, stored - have)).rate} creates/s in-process\n`);
      have = stored;
    }
    const ours = await bothOps(stack.serverUrl, sessionIds, { pid: stack.servicePid, nodes: stack.nodes, settle });
    for (const op of ["create", "get"] as const) {
      const [mine, base] = [ours[op], bare[op]];
      rows.push([
        op,
        String(stored),
        String(mine.rps),
        `${mine.p50}`,
        `${mine.p99}`,
        String(mine.errors),
        String(mine.cpuUsPerRequest ?? "?"),
        String(mine.redis?.commandsPerRequest ?? "?"),
        String(mine.redis?.cpuUsPerRequest ?? "?"),
        shares(mine.redis),
        String(base.rps),
        `${base.p50}`,
        `${base.p99}`,
        (mine.rps / base.rps).toFixed(2),
      ]);
    }
  }
  return { rows, bareCreate: bare.create };
}
