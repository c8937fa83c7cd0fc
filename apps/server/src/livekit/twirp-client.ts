/**
 * LiveKit's server API (Twirp: JSON over HTTP POST) on a keep-alive undici Pool, with one API token per
 * minute instead of one per call. livekit-server-sdk's clients call the global fetch (web streams, an
 * AbortSignal and a new JWT per call): about a fifth of a create's CPU. The token here is the service's
 * own credential to LiveKit, never a participant's; participant tokens are still minted per request.
 * Bodies are protobuf's JSON mapping, as the SDK sends them.
 */
import { AccessToken } from "livekit-server-sdk";
import { Pool } from "undici";
import { NO_TRACING, type Tracing } from "../tracing/tracing.js";

/** An answer of LiveKit's other than 2xx, with Twirp's error code. */
export class LiveKitApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "LiveKitApiError";
  }
}

export interface TwirpClientOptions {
  /** HTTP(S) address of LiveKit's API (a ws(s) address is accepted and mapped). */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  /** A call with no answer by then fails. */
  timeoutMs: number;
  /** Connections kept to LiveKit. */
  connections?: number;
  /** A client span per call, named by LiveKit's service and method. */
  tracing?: Tracing;
}

/** How long a minted API token is used, and how long it is valid (the margin covers clock skew). */
const TOKEN_REUSE_MS = 60_000;
const TOKEN_TTL_S = 600;

export class TwirpClient {
  private readonly pool: Pool;
  private token: { jwt: Promise<string>; mintedAt: number } | undefined;

  constructor(private readonly options: TwirpClientOptions) {
    const origin = new URL(options.apiUrl.replace(/^ws/, "http")).origin;
    this.pool = new Pool(origin, {
      connections: options.connections ?? 32,
      // LiveKit's Go server closes idle connections after 120 s; reuse them for less.
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
    });
  }

  /**
   * Calls `livekit.<service>/<method>` and answers its JSON. `adminOf` names the room of a call that needs
   * LiveKit's roomAdmin grant, which is given for one room at a time: such calls (agent dispatches, a few
   * per session) get a token of their own.
   */
  call<T>(service: string, method: string, body: unknown, adminOf?: string): Promise<T> {
    const tracing = this.options.tracing ?? NO_TRACING;
    if (!tracing.enabled) return this.post(service, method, body, adminOf);
    return tracing.span(
      `livekit.${service}/${method}`,
      { "rpc.system": "twirp", "rpc.service": `livekit.${service}`, "rpc.method": method },
      async (span) => {
        try {
          return await this.post<T>(service, method, body, adminOf);
        } catch (error) {
          if (error instanceof LiveKitApiError)
            span.setAttributes({ "http.response.status_code": error.status, "rpc.twirp.code": error.code });
          throw error;
        }
      },
      { kind: "client" },
    );
  }

  private async post<T>(service: string, method: string, body: unknown, adminOf?: string): Promise<T> {
    const token = adminOf === undefined ? await this.apiToken() : await this.roomAdminToken(adminOf);
    const {
      statusCode,
      headers,
      body: answer,
    } = await this.pool.request({
      method: "POST",
      path: `/twirp/livekit.${service}/${method}`,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    const text = await answer.text();
    if (statusCode >= 200 && statusCode < 300) return (text ? JSON.parse(text) : {}) as T;
    let code: string | undefined;
    let message = text.slice(0, 500);
    if (String(headers["content-type"] ?? "").startsWith("application/json")) {
      try {
        const error = JSON.parse(text) as { code?: string; msg?: string };
        code = error.code;
        message = error.msg ?? message;
      } catch {
        // not Twirp's JSON: the text is the message
      }
    }
    throw new LiveKitApiError(statusCode, code, message);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private roomAdminToken(room: string): Promise<string> {
    const at = new AccessToken(this.options.apiKey, this.options.apiSecret, { ttl: TOKEN_TTL_S });
    at.addGrant({ roomAdmin: true, room });
    return at.toJwt();
  }

  /** One token for creating, listing and deleting rooms, minted at most once a minute. */
  private apiToken(): Promise<string> {
    const now = Date.now();
    if (!this.token || now - this.token.mintedAt > TOKEN_REUSE_MS) {
      const at = new AccessToken(this.options.apiKey, this.options.apiSecret, { ttl: TOKEN_TTL_S });
      at.addGrant({ roomCreate: true, roomList: true });
      const jwt = at.toJwt();
      this.token = { jwt, mintedAt: now };
      // A failed mint is not cached.
      jwt.catch(() => {
        if (this.token?.jwt === jwt) this.token = undefined;
      });
    }
    return this.token.jwt;
  }
}
