/**
 * Sessions stored through the service's own create path, in process (store and tokens real, LiveKit a
 * no-op), for an account of their own: the measured accounts stay under their cap of open sessions
 * however many are stored.
 */
import { AccountLimits } from "@dhs/server/account-limits";
import { DigitalHumanCatalog } from "@dhs/server/digital-human-catalog";
import { DigitalHumanService } from "@dhs/server/digital-human-service";
import { RedisDigitalHumanStore } from "@dhs/server/redis-digital-human-store";
import { RedisSessionStore } from "@dhs/server/redis-session-store";
import { SessionService } from "@dhs/server/session-service";
import { LiveKitTokenIssuer } from "@dhs/server/token-issuer";
import { DIGITAL_HUMANS } from "@dhs/testkit";
import type { Cluster, Redis } from "ioredis";
import { inParallel } from "./in-parallel.js";
import { LIVEKIT, STORED_ACCOUNT } from "./settings.js";

/** The service's own session use cases on this Redis (store and tokens real, LiveKit a no-op). */
export function seedService(redis: Redis | Cluster) {
  const catalog = new DigitalHumanCatalog([DIGITAL_HUMANS[0]], [{ id: "slt", name: "SLT", language: "en", description: null }]);
  const personas = new DigitalHumanService({
    store: new RedisDigitalHumanStore(redis, "dhs"),
    catalog,
    limit: () => 100,
    maxSessionDurationS: () => 1800,
    idempotencyKeyTtlMs: 86_400_000,
  });
  return new SessionService({
    store: new RedisSessionStore(redis),
    rooms: {
      createRoom: async () => {},
      deleteRoom: async () => {},
      hasLiveAgentJob: async () => true,
      dispatchAgent: async () => {},
      listSessionRooms: async () => [],
    },
    tokens: new LiveKitTokenIssuer(LIVEKIT.key, LIVEKIT.secret),
    catalog,
    personas,
    accounts: new AccountLimits(Number.MAX_SAFE_INTEGER),
    settings: {
      eventRetainMs: 86_400_000,
      livekitEventDedupeMs: 3_600_000,
      rtcUrl: "ws://127.0.0.1",
      participantTokenTtlS: 600,
      idempotencyKeyTtlMs: 86_400_000,
      idempotencyLockTtlMs: 10_000,
      durations: {
        joinTimeoutS: 600,
        digitalHumanJoinTimeoutS: 60,
        maxDurationS: 1800,
        departureTimeoutS: 30,
        redispatchS: 5,
        retentionS: 2_592_000,
      },
    },
  });
}

export const STORED_PRINCIPAL = {
  keyId: "key_stored",
  accountId: STORED_ACCOUNT,
  account: STORED_ACCOUNT,
  mode: "live" as const,
  scopes: new Set(["sessions:read", "sessions:write"] as const),
};

/** Creates sessions through the service's own create path; returns the rate and their ids. */
export async function seed(redis: Redis | Cluster, count: number): Promise<{ rate: number; ids: string[] }> {
  const sessions = seedService(redis);
  const run = `seed-${Date.now()}`;
  const ids: string[] = [];
  const rate = await inParallel(count, async (i) => {
    const { session } = await sessions.create(STORED_PRINCIPAL, `${run}-${i}`, { participant_identity: `seed-${i}`, tags: ["bench"] });
    ids.push(session.id);
  });
  return { rate, ids };
}
