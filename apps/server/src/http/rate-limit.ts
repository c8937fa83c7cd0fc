/**
 * Applies the API key's rate limit: every /v1 answer tells the key where it stands (RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset); past the limit the answer is 429 rate_limited with Retry-After.
 * A caller without an API key (a digital human) is limited by what its credential proves (its session).
 */
import type { NextFunction, Request, Response } from "express";
import type { RateLimiter } from "../domain/accounts/rate-limiter.js";
import { AppError } from "../domain/app-error.js";
import { principalOf } from "./authenticate.js";

export function rateLimit(limiter: RateLimiter, bucketOf: (res: Response) => string = (res) => principalOf(res).keyId) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await limiter.consume(bucketOf(res));
    const resetS = Math.ceil(decision.retryAfterMs / 1000);
    const headers = {
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(resetS),
    };
    if (!decision.allowed) {
      return next(
        new AppError("rate_limited", `Rate limit of ${decision.limit} requests per second exceeded; retry in ${resetS} s.`, {
          retryAfterSeconds: resetS,
          headers,
        }),
      );
    }
    res.set(headers);
    next();
  };
}
