/**
 * The service's operations for a session's digital human (the contract's tag *Digital human workers*:
 * appendTranscriptSegments, pullConversation, reportConversation, runToolCall, searchSessionKnowledge, and a recording's
 * startSessionRecording, createRecordingUpload, finishSessionRecording), typed by the contract's `paths`
 * through openapi-fetch, so a field the contract renames fails `tsc` here. Called with the contract's
 * `digitalHumanToken`: a LiveKit access token this worker signs with the LiveKit API key and secret it
 * already holds, an agent's grant for the session's room, for the job's own identity.
 *
 * Retries are @dhs/client's policy (`withRetries`): a call that failed on the network, with a 429 or
 * 502-504, is sent again as it was, backing off with jitter and honouring Retry-After, up to its
 * attempts; every one of these operations is safe to repeat (the contract marks them `x-retry-safe`).
 * Any other answer is handed back at once: whether it means stop (401, 404, 409) is the caller's to say.
 */
import { withRetries } from "@dhs/client/retry";
import type { components, paths } from "@dhs/contract";
import { AccessToken } from "livekit-server-sdk";
import createClient from "openapi-fetch";
import type { WorkerConfig } from "../worker/worker-config.js";

type Schemas = components["schemas"];

const TOKEN_TTL_S = 600;
/** The longest wait between two attempts; a Retry-After longer than this is answered, not waited for. */
const MAX_WAIT_MS = 10_000;
/** One attempt's bound. */
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface ServiceAccess {
  /** The service's base URL (DHS_API_URL), without a trailing slash. */
  serviceUrl: string;
  sessionId: string;
  roomName: string;
  apiKey: string;
  apiSecret: string;
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * The service's address (DHS_API_URL) and the worker's LiveKit key (worker.ts sets both for its jobs);
 * undefined where the worker does not know the service, or the job no session (a dispatch made by hand).
 */
export function serviceAccess(
  config: Pick<WorkerConfig, "DHS_API_URL" | "LIVEKIT_API_KEY" | "LIVEKIT_API_SECRET">,
  sessionId: string | undefined,
  roomName: string | undefined,
): ServiceAccess | undefined {
  const serviceUrl = config.DHS_API_URL;
  if (serviceUrl === undefined || sessionId === undefined) return undefined;
  return {
    serviceUrl,
    sessionId,
    roomName: roomName ?? `dhs-${sessionId}`,
    apiKey: config.LIVEKIT_API_KEY,
    apiSecret: config.LIVEKIT_API_SECRET,
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

/** What a call came to: the answer's data, or why not (`status` undefined: no answer, on the network). */
export type Outcome<T> =
  | { ok: true; data: T }
  | { ok: false; status: number | undefined; problem: string; error?: Schemas["ApiError"] | undefined };

export interface RetryOptions {
  attempts: number;
  /** The first retry's wait; each next one doubles it (with jitter). */
  baseMs: number;
  /** One attempt's bound; 10 s unless the call may take longer (a webhook tool's). */
  attemptTimeoutMs?: number;
  /** Cancels the call, its waits between attempts too (a deadline of the caller's). */
  signal?: AbortSignal;
}

export class ServiceClient {
  private readonly token: DigitalHumanToken;
  private readonly session: { params: { path: { session_id: string } } };

  constructor(
    private readonly access: ServiceAccess,
    identity: () => string,
  ) {
    this.token = new DigitalHumanToken(access, identity);
    this.session = { params: { path: { session_id: access.sessionId } } };
  }

  appendSegments(body: Schemas["TranscriptSegmentsAppend"], retry: RetryOptions): Promise<Outcome<Schemas["TranscriptSegmentsAppended"]>> {
    return outcome(() => this.client(retry).POST("/v1/sessions/{session_id}/transcript/segments", { ...this.session, body }));
  }

  pull(body: Schemas["ConversationPullRequest"], retry: RetryOptions): Promise<Outcome<Schemas["ConversationQueue"]>> {
    return outcome(() => this.client(retry).POST("/v1/sessions/{session_id}/conversation/pull", { ...this.session, body }));
  }

  report(body: Schemas["ConversationReports"], retry: RetryOptions): Promise<Outcome<Schemas["ConversationReported"]>> {
    return outcome(() => this.client(retry).POST("/v1/sessions/{session_id}/conversation/reports", { ...this.session, body }));
  }

  runToolCall(body: Schemas["ToolCallRun"], retry: RetryOptions): Promise<Outcome<Schemas["ToolCall"]>> {
    return outcome(() => this.client(retry).POST("/v1/sessions/{session_id}/conversation/tool-calls", { ...this.session, body }));
  }

  searchKnowledge(body: Schemas["KnowledgeSearch"], retry: RetryOptions): Promise<Outcome<Schemas["KnowledgeSearchResults"]>> {
    return outcome(() => this.client(retry).POST("/v1/sessions/{session_id}/conversation/knowledge", { ...this.session, body }));
  }

  startRecording(body: Schemas["RecordingJob"], retry: RetryOptions): Promise<Outcome<Schemas["SessionRecording"]>> {
    return outcome(() =>
      this.client(retry).POST("/v1/sessions/{session_id}/recording/start", { ...this.session, body, signal: retry.signal ?? null }),
    );
  }

  createRecordingUpload(body: Schemas["RecordingJob"], retry: RetryOptions): Promise<Outcome<Schemas["RecordingUploadTarget"]>> {
    return outcome(() =>
      this.client(retry).POST("/v1/sessions/{session_id}/recording/upload", { ...this.session, body, signal: retry.signal ?? null }),
    );
  }

  finishRecording(body: Schemas["RecordingFinish"], retry: RetryOptions): Promise<Outcome<Schemas["SessionRecording"]>> {
    return outcome(() =>
      this.client(retry).POST("/v1/sessions/{session_id}/recording/finish", { ...this.session, body, signal: retry.signal ?? null }),
    );
  }

  private client(retry: RetryOptions) {
    const send = this.access.fetch ?? fetch;
    const authorized = async (request: Request) => {
      request.headers.set("Authorization", `Bearer ${await this.token.bearer()}`);
      return send(request);
    };
    return createClient<paths>({
      baseUrl: this.access.serviceUrl,
      fetch: withRetries(authorized, {
        maxRetries: retry.attempts - 1,
        timeoutMs: retry.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
        baseDelayMs: retry.baseMs,
        maxDelayMs: MAX_WAIT_MS,
      }),
    });
  }
}

async function outcome<T>(
  call: () => Promise<{ data?: T; error?: Schemas["ApiError"] | undefined; response: Response }>,
): Promise<Outcome<T>> {
  try {
    const { data, error, response } = await call();
    if (data !== undefined && response.ok) return { ok: true, data };
    const problem = `${response.status} ${JSON.stringify(error ?? null).slice(0, 300)}`;
    return { ok: false, status: response.status, problem, error };
  } catch (error) {
    return { ok: false, status: undefined, problem: String(error) };
  }
}
