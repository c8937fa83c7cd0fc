/**
 * Retries of transient failures, as a wrapper around fetch.
 *
 * What is transient, by status and code: a network failure or per-attempt timeout, `429 rate_limited`
 * (or a 429 from a proxy, without an ApiError), `502`/`503`/`504` (the service or a gateway in front of it
 * is briefly unavailable) and `409 idempotency_request_in_progress` (the first attempt of the same
 * create is still running). `429 concurrency_limit_exceeded` is not: the account must end a session
 * first, and no wait says when that will be. What is safe to retry is the contract's word: GETs, any
 * request carrying an Idempotency-Key, and the operations openapi/v1.yaml marks `x-retry-safe` (read
 * from the contract package's generated operation list, shipped inside this one). Everything else (creating
 * an endpoint, rotating its secret, a test event, deleting an endpoint) is answered as it is, but for
 * `429 concurrent_changes`: the service says nothing was changed, so any request is sent again.
 */
import { operationList } from "@dhs/contract/operations";

export type Fetch = (input: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retries off. */
  maxRetries: number;
  /** Aborts one attempt after this long; a timed-out attempt counts as a network failure. */
  timeoutMs: number;
  /** First backoff step; doubles per retry, with jitter. */
  baseDelayMs?: number;
  /** No single wait is longer; a Retry-After beyond it is not waited for. */
  maxDelayMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

const RETRYABLE_STATUSES = new Set([502, 503, 504]);

/**
 * The operations that are safe to retry, each as its method and its path template as a pattern: a
 * parameter is one segment, and the path ends the URL's (baseUrl may add a prefix before /v1).
 */
const RETRY_SAFE = operationList
  .filter((operation) => operation.retrySafe)
  .map((operation) => ({ method: operation.method, path: templatePattern(operation.path) }));

function templatePattern(template: string): RegExp {
  const literals = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`${literals.join("[^/]+")}$`);
}

export function isSafeToRetry(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  if (request.headers.has("Idempotency-Key")) return true;
  const path = new URL(request.url).pathname;
  return RETRY_SAFE.some((operation) => operation.method === request.method && operation.path.test(path));
}

/** Whether the answer is worth sending the request again for: `safe` says whether it may have been carried out twice. */
async function isTransient(response: Response, safe: boolean): Promise<boolean> {
  if (response.status !== 409 && response.status !== 429) return safe && RETRYABLE_STATUSES.has(response.status);
  const code = await codeOf(response);
  // Nothing was changed: whatever the request, it may be sent again.
  if (code === "concurrent_changes") return true;
  if (!safe) return false;
  if (response.status === 409) return code === "idempotency_request_in_progress";
  return code === "rate_limited" || code === undefined;
}

/** The ApiError code of an answer, or undefined when its body is not one. */
async function codeOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.clone().json();
    const code = (body as { code?: unknown } | null)?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get("Retry-After")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date always names its month; Date.parse would also read "-1" or "2" as years.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function withRetries(fetchImpl: Fetch, options: RetryOptions): Fetch {
  const { maxRetries, timeoutMs, baseDelayMs = 500, maxDelayMs = 30_000, sleep = defaultSleep, random = Math.random } = options;

  // Full exponential backoff with "equal jitter": half fixed, half random, so retries of many clients
  // spread out but none retries immediately.
  const backoff = (retry: number) => {
    const step = Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
    return step / 2 + random() * (step / 2);
  };

  return async (request) => {
    const safe = isSafeToRetry(request);
    for (let retry = 0; ; retry++) {
      const last = retry >= maxRetries;
      // Each attempt sends a clone, so the body can be sent again; the caller's signal still cancels it.
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
      const attempt = new Request(last ? request : request.clone(), { signal });
      let response: Response;
      try {
        response = await fetchImpl(attempt);
      } catch (error) {
        if (last || !safe || request.signal.aborted) throw error;
        await sleep(backoff(retry), request.signal);
        continue;
      }
      if (last || !(await isTransient(response, safe))) return response;
      const serverDelay = retryAfterMs(response);
      if (serverDelay !== undefined && serverDelay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(serverDelay ?? backoff(retry), request.signal);
    }
  };
}
