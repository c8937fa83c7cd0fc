/**
 * Sessions stored through the service's own create path, in process: the service as its composition root
 * makes it from the measured service's own environment (store and tokens real, LiveKit a no-op), for an
 * account of their own, whose open sessions are not capped: the measured accounts stay under their cap
 * however many are stored.
 */
import { AccountLimits } from "@dhs/server/account-limits";
import { type Composed, compose } from "@dhs/server/compose";
import { loadConfig } from "@dhs/server/config";
import { pino } from "pino";
import { inParallel } from "./in-parallel.js";
import { STORED_ACCOUNT } from "./settings.js";
import type { Stack } from "./stack.js";

/** LiveKit as the seeding needs it: every call answered, nothing done. */
const NO_LIVEKIT = {
  createRoom: async () => {},
  deleteRoom: async () => {},
  hasLiveAgentJob: async () => true,
  dispatchAgent: async () => {},
  listSessionRooms: async () => [],
};

/**
 * The service's session use cases, composed as the measured service is (from its environment: the same
 * Redis, key layout and settings), on connections of their own; `close` lets go of them.
 */
export async function seedService(stack: Pick<Stack, "service">): Promise<{ sessions: Composed["sessions"]; close(): Promise<void> }> {
  const config = loadConfig({ ...stack.service.env, LOG_LEVEL: "silent" });
  const composed = compose(config, pino({ level: "silent" }), { rooms: NO_LIVEKIT, accounts: new AccountLimits(Number.MAX_SAFE_INTEGER) });
  // The store connects in the background and refuses commands until it has (as the service's does).
  if (!(await composed.waitForStore(30_000))) throw new Error("bench: the seeding service's store did not connect within 30 s");
  return { sessions: composed.sessions, close: () => composed.close() };
}

export const STORED_PRINCIPAL = {
  keyId: "key_stored",
  accountId: STORED_ACCOUNT,
  account: STORED_ACCOUNT,
  mode: "live" as const,
  scopes: new Set(["sessions:read", "sessions:write"] as const),
};

/** Creates sessions through the service's own create path; returns the rate and their ids. */
export async function seed(stack: Pick<Stack, "service">, count: number): Promise<{ rate: number; ids: string[] }> {
  const { sessions, close } = await seedService(stack);
  const run = `seed-${Date.now()}`;
  const ids: string[] = [];
  try {
    const rate = await inParallel(count, async (i) => {
      const { session } = await sessions.create(STORED_PRINCIPAL, `${run}-${i}`, { participant_identity: `seed-${i}`, tags: ["bench"] });
      ids.push(session.id);
    });
    return { rate, ids };
  } finally {
    await close();
  }
}
