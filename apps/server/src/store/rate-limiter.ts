/**
 * Per-API-key rate limits (contract guide, "Rate limits") with rate-limiter-flexible, on the same Redis
 * as sessions (or in memory with the memory store): a steady rate per second, plus a burst allowance that
 * lets a key go up to `burst` requests in one second and refills over 10 seconds. A Redis that does not
 * answer makes the request a 503, like every other request that needs Redis.
 */
import type { Cluster, Redis } from "ioredis";
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RateDecision, RateLimiter } from "../domain/accounts/rate-limiter.js";
import { DependencyUnavailableError } from "../domain/dependency-errors.js";

export interface RateLimitSettings {
  perSecond: number;
  burst: number;
  keyPrefix: string;
}

const BURST_REFILL_S = 10;

export class FlexibleRateLimiter implements RateLimiter {
  private readonly limiter: BurstyRateLimiter;

  constructor(
    private readonly settings: RateLimitSettings,
    redis?: Redis | Cluster,
  ) {
    const extra = Math.max(settings.burst - settings.perSecond, 0);
    // The key is the limiter's own hash tag, so each key's counter is one Redis Cluster key.
    const make = (points: number, duration: number, suffix: string) =>
      redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points,
            duration,
            keyPrefix: `${settings.keyPrefix}:rl:${suffix}`,
            rejectIfRedisNotReady: true,
          })
        : new RateLimiterMemory({ points, duration, keyPrefix: suffix });
    this.limiter = new BurstyRateLimiter(make(settings.perSecond, 1, "rate"), make(Math.max(extra, 1), BURST_REFILL_S, "burst"));
  }

  async consume(keyId: string): Promise<RateDecision> {
    const limit = this.settings.perSecond;
    try {
      const res = await this.limiter.consume(`{${keyId}}`);
      return { allowed: true, limit, remaining: Math.max(res.remainingPoints, 0), retryAfterMs: 0 };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, limit, remaining: 0, retryAfterMs: Math.max(rejection.msBeforeNext, 1) };
      }
      throw new DependencyUnavailableError("store", { cause: rejection });
    }
  }
}
