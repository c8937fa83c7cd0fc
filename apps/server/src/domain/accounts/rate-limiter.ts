/** The per-API-key rate limit the HTTP layer applies; its adapter lives in store/. */

/** What the rate limiter decided for one request of an API key. */
export interface RateDecision {
  allowed: boolean;
  /** Requests per second the key may make. */
  limit: number;
  remaining: number;
  /** Milliseconds until the key may make requests again (0 while it may). */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts one request of this key. Rejects with DependencyUnavailableError when its store is down. */
  consume(keyId: string): Promise<RateDecision>;
}
