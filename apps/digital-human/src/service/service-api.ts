/**
 * The service's operations for a session's digital human (the transcript, the conversation's queue and
 * reports), called with the contract's `digitalHumanToken`: a LiveKit access token this worker signs with
 * the LiveKit API key and secret it already holds, an agent's grant for the session's room.
 *
 * A post that failed on the network or with 429/5xx is sent again as it was, backing off (a 429's
 * Retry-After, when longer); every one of these operations makes a repeat harmless. Any other answer is
 * handed back at once: whether it means stop (401, 404) is the caller's to say.
 */
import { AccessToken } from "livekit-server-sdk";

const TOKEN_TTL_S = 600;
/** The longest wait between two attempts, whatever a Retry-After asks. */
const MAX_WAIT_MS = 10_000;

export interface ServiceAccess {
  /** The service's base URL (DHS_API_URL), without a trailing slash. */
  serviceUrl: string;
  sessionId: string;
  roomName: string;
  apiKey: string;
  apiSecret: string;
  fetch?: typeof fetch;
}

/**
 * The service's address (DHS_API_URL) and the worker's LiveKit key (worker.ts sets both for its jobs);
 * undefined where the worker does not know the service, or the job no session (a dispatch made by hand).
 */
export function serviceAccess(
  env: NodeJS.ProcessEnv,
  sessionId: string | undefined,
  roomName: string | undefined,
): ServiceAccess | undefined {
  const serviceUrl = env.DHS_API_URL?.replace(/\/+$/, "");
  if (!serviceUrl || sessionId === undefined) return undefined;
  return {
    serviceUrl,
    sessionId,
    roomName: roomName ?? `dhs-${sessionId}`,
    apiKey: env.LIVEKIT_API_KEY ?? "",
    apiSecret: env.LIVEKIT_API_SECRET ?? "",
  };
}

/**
 * The bearer token of the session's room for an identity (the job's own in the room, for the
 * conversation: the service holds a pull's `participant_identity` to it), signed again a minute before it
 * expires or when the identity changed.
 */
export class DigitalHumanToken {
  private token: { jwt: string; expiresAtMs: number; identity: string } | undefined;

  constructor(
    private readonly access: Pick<ServiceAccess, "apiKey" | "apiSecret" | "roomName">,
    private readonly identity: () => string,
  ) {}

  async bearer(): Promise<string> {
    const now = Date.now();
    const identity = this.identity();
    if (this.token && this.token.identity === identity && this.token.expiresAtMs - now > 60_000) return this.token.jwt;
    const token = new AccessToken(this.access.apiKey, this.access.apiSecret, { identity, ttl: TOKEN_TTL_S });
    token.addGrant({ room: this.access.roomName, agent: true });
    this.token = { jwt: await token.toJwt(), expiresAtMs: now + TOKEN_TTL_S * 1000, identity };
    return this.token.jwt;
  }
}

export type PostOutcome =
  | { ok: true; body: unknown }
  /**
   * `status` undefined: the network failed (or the answer was not JSON) on the last attempt; `error` the
   * service's ApiError, when it answered one.
   */
  | { ok: false; status: number | undefined; problem: string; error?: { code?: unknown; detail?: unknown } | undefined };

export interface RetryOptions {
  attempts: number;
  /** The first retry's wait; each next one doubles it. */
  baseMs: number;
}

export class ServiceApi {
  private readonly token: DigitalHumanToken;

  constructor(
    private readonly access: ServiceAccess,
    identity: () => string,
  ) {
    this.token = new DigitalHumanToken(access, identity);
  }

  /** POSTs `body` as JSON to `path` under the session (`/conversation/pull`), retried as the module says. */
  async post(path: string, body: unknown, retry: RetryOptions): Promise<PostOutcome> {
    const { serviceUrl, sessionId } = this.access;
    const fetchImpl = this.access.fetch ?? fetch;
    let outcome: PostOutcome = { ok: false, status: undefined, problem: "not sent" };
    let waitMs = 0;
    for (let attempt = 0; attempt < retry.attempts; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_WAIT_MS, Math.max(waitMs, retry.baseMs * 2 ** (attempt - 1)))));
      waitMs = 0;
      try {
        const res = await fetchImpl(`${serviceUrl}/v1/sessions/${sessionId}${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${await this.token.bearer()}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        if (res.ok) return { ok: true, body: await res.json() };
        const text = await res.text();
        outcome = { ok: false, status: res.status, problem: `${res.status} ${text.slice(0, 300)}`, error: apiError(text) };
        if (res.status !== 429 && res.status < 500) return outcome;
        waitMs = Number(res.headers.get("Retry-After") ?? 0) * 1000 || 0;
      } catch (error) {
        outcome = { ok: false, status: undefined, problem: String(error) };
      }
    }
    return outcome;
  }
}

function apiError(text: string): { code?: unknown; detail?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as { code?: unknown; detail?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
