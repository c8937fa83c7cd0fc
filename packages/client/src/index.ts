/**
 * @dhs/client: the typed client of the Digital Human Session Service API (openapi/v1.yaml), for server
 * code only (it sends your API key).
 *
 * Every method resolves to openapi-fetch's `{ data, error, response }`: HTTP errors are typed `ApiError`
 * data, never exceptions. Use `unwrap()` where an exception reads better. Creates, `say` and
 * `addSessionContext` get an `Idempotency-Key` when the caller gives none, and every call retries
 * transient failures (network errors, 429, 502-504, a create still in flight) with the same key, backing
 * off with jitter and honouring Retry-After.
 */

import type {
  ApiKeyOperationId,
  ContextRequest,
  DigitalHumanCreate,
  DigitalHumanUpdate,
  DocumentCreate,
  DocumentUpload,
  GetSessionTranscriptQuery,
  GetUsageQuery,
  KnowledgeSearch,
  ListDigitalHumansQuery,
  ListDocumentsQuery,
  ListSessionsQuery,
  ListWebhookDeliveriesQuery,
  operations,
  paths,
  SayRequest,
  SessionCreate,
  TestSessionAnalysis,
  TestSessionEvent,
  TestToolCall,
  WebhookEndpointCreate,
} from "@dhs/contract";
import type { Client } from "openapi-fetch";
import createFetchClient from "openapi-fetch";
import type { SuccessResponseJSON } from "openapi-typescript-helpers";
import { type Fetch, withRetries } from "./retry.js";

export type {
  AnalysisError,
  ApiError,
  ContextNote,
  ContextRequest,
  CriterionOutcome,
  components,
  DigitalHuman,
  DigitalHumanAnalysis,
  DigitalHumanAnalysisInput,
  DigitalHumanCreate,
  DigitalHumanDeleted,
  DigitalHumanKind,
  DigitalHumanList,
  DigitalHumanUpdate,
  EndReason,
  Interruption,
  ListSessionsQuery,
  Mode,
  operations,
  ParticipantTurnData,
  Principal,
  paths,
  SayRequest,
  Scope,
  Session,
  SessionAnalysis,
  SessionCreate,
  SessionEventData,
  SessionList,
  SessionStatus,
  SessionSummary,
  TestSessionAnalysis,
  TestSessionEvent,
  TestToolCall,
  Tool,
  ToolCall,
  ToolCallAnswer,
  ToolCalledData,
  ToolCallList,
  ToolCallPayload,
  Transcript,
  TranscriptReadyData,
  TranscriptSegment,
  TranscriptSpeaker,
  TranscriptStatus,
  Usage,
  UsageCounts,
  Utterance,
  UtteranceEventData,
  UtteranceStatus,
  Voice,
  VoiceList,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointList,
  WebhookEvent,
  WebhookEventType,
  WebhookPayload,
  WebhookTestData,
  webhooks,
} from "@dhs/contract";
export { DhsApiError, unwrap } from "./errors.js";
export { isSafeToRetry } from "./retry.js";
export { type VerifiedWebhook, verifyToolCall, verifyWebhook, WebhookVerificationError } from "./verify-webhook.js";

export interface ClientOptions {
  /** Where the service is, e.g. `https://dhs.internal` (no `/v1`). */
  baseUrl: string;
  /** A server-side API key (`dhs_...`). Never ship it to a browser. */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: Fetch;
  /** Retries of a transient failure after the first attempt. Default 2; 0 turns them off. */
  maxRetries?: number;
  /** Time limit of one attempt in milliseconds. Default 30 000. */
  timeoutMs?: number;
}

/** The options of a create (a session's, a digital human's), and of `say` and `addSessionContext`. */
export interface CreateSessionOptions {
  /**
   * Names this logical create (or utterance, or note); send the same key to retry it. Generated (a UUID
   * v4) when omitted, and reused for the client's own retries. Give your own to retry across processes
   * or restarts.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export type CreateOptions = CreateSessionOptions;
/** The options of `say` and `addSessionContext`, which take an Idempotency-Key like a create. */
export type IdempotentOptions = CreateSessionOptions;

/** A file for `uploadDocument`: its bytes and its name (whose extension tells its format when neither `format` nor `contentType` does). */
export interface DocumentFile {
  data: Blob | Uint8Array;
  filename: string;
  /** `application/pdf`, `text/plain`, `text/markdown` or `text/html`; from `filename` when left out. */
  contentType?: string;
}

/** A document sent as a file: the file, and its `name` (the file's by default), `format` and `language`. */
export type DocumentFileInput = Omit<DocumentUpload, "file"> & { file: DocumentFile };

/**
 * A request body as a caller may write it. openapi-typescript types a property with a `default` as
 * required (it always has a value once the server has read the request), but a request may leave it out.
 */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** What `say` takes: `text`, and `interrupt` (default false) to say it at once. */
export type SayInput = WithDefaults<SayRequest, "interrupt">;

/** What `addSessionContext` takes: `text`, and `respond` (default false) to have it answered now. */
export type ContextInput = WithDefaults<ContextRequest, "respond">;

/** What `searchKnowledge` takes: `query`, and `limit` (default 3). */
export type KnowledgeSearchInput = WithDefaults<KnowledgeSearch, "limit">;

export interface RequestOptions {
  signal?: AbortSignal;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 30_000;

function signalOption(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

/**
 * One method per operation an API key calls, named by its operationId and resolving to that operation's
 * success body: an operation added to the contract does not compile until the client has its method.
 */
type OperationMethods = {
  [Id in ApiKeyOperationId]: (...args: never[]) => Promise<{ data?: SuccessResponseJSON<operations[Id]> }>;
};

function documentForm(file: DocumentFile, fields: Omit<DocumentUpload, "file">): FormData {
  const form = new FormData();
  const data = file.data instanceof Blob ? file.data : new Blob([file.data as Uint8Array<ArrayBuffer>]);
  form.append("file", file.contentType === undefined ? data : new Blob([data], { type: file.contentType }), file.filename);
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  return form;
}

export function createClient(options: ClientOptions) {
  const { baseUrl, apiKey } = options;
  if (!baseUrl) throw new TypeError("createClient: baseUrl is required");
  if (!apiKey) throw new TypeError("createClient: apiKey is required");

  const fetchImpl: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const raw: Client<paths> = createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${apiKey}` },
    fetch: withRetries(fetchImpl, {
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    }),
  });

  const sessionPath = (sessionId: string) => ({ params: { path: { session_id: sessionId } } });
  const endpointPath = (endpointId: string) => ({ params: { path: { endpoint_id: endpointId } } });
  const digitalHumanPath = (digitalHumanId: string) => ({ params: { path: { digital_human_id: digitalHumanId } } });
  const documentPath = (documentId: string) => ({ params: { path: { document_id: documentId } } });

  const methods = {
    /** POST /v1/sessions: creates a session; replays the first answer for a repeated key and body. */
    createSession(body: SessionCreate = {}, opts: CreateSessionOptions = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      return raw.POST("/v1/sessions", {
        body,
        params: { header: { "Idempotency-Key": idempotencyKey } },
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/sessions/{id}: the session now, with a fresh token while it is connectable. */
    getSession(sessionId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /** GET /v1/sessions: one page of the account's sessions, newest first. */
    listSessions(query: ListSessionsQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions", { params: { query }, ...signalOption(opts.signal) });
    },

    /** POST /v1/sessions/{id}/token: a new participant token; 409 once the session is terminal. */
    refreshSessionToken(sessionId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/sessions/{session_id}/token", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /** POST /v1/sessions/{id}/end: ends the session and deletes its room; idempotent. */
    endSession(sessionId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/sessions/{session_id}/end", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * GET /v1/sessions/{id}/transcript: a page of what was said, in spoken order, and whether the
     * transcript is `in_progress`, `complete` or `deleted`; pass `next_cursor` back as `cursor`.
     */
    getSessionTranscript(sessionId: string, query: GetSessionTranscriptQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}/transcript", {
        params: { path: { session_id: sessionId }, query },
        ...signalOption(opts.signal),
      });
    },

    /** DELETE /v1/sessions/{id}/transcript: erases the transcript now and refuses later segments; idempotent. */
    deleteSessionTranscript(sessionId: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/sessions/{session_id}/transcript", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * POST /v1/sessions/{id}/say: queues `text` for the digital human to say verbatim, after what it is
     * saying now or at once (`interrupt: true`); answers the utterance, `queued` (202). Replays it for a
     * repeated key and body (a key is generated when none is given).
     */
    say(sessionId: string, body: SayInput, opts: IdempotentOptions = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      return raw.POST("/v1/sessions/{session_id}/say", {
        params: { path: { session_id: sessionId }, header: { "Idempotency-Key": idempotencyKey } },
        // Sent as given, not with `interrupt: false` filled in: the server applies the default.
        body: body as SayRequest,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/sessions/{id}/say/{utterance_id}: an utterance of `say` and how far it got. */
    getUtterance(sessionId: string, utteranceId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}/say/{utterance_id}", {
        params: { path: { session_id: sessionId, utterance_id: utteranceId } },
        ...signalOption(opts.signal),
      });
    },

    /** POST /v1/sessions/{id}/interrupt: stops the digital human talking and drops what is queued; safe to retry. */
    interruptSession(sessionId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/sessions/{session_id}/interrupt", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * POST /v1/sessions/{id}/context: a note for the digital human's LLM (answered now with `respond:
     * true`); replays it for a repeated key and body (a key is generated when none is given).
     */
    addSessionContext(sessionId: string, body: ContextInput, opts: IdempotentOptions = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      return raw.POST("/v1/sessions/{session_id}/context", {
        params: { path: { session_id: sessionId }, header: { "Idempotency-Key": idempotencyKey } },
        body: body as ContextRequest,
        ...signalOption(opts.signal),
      });
    },

    /**
     * POST /v1/test-helpers/sessions/{id}/events (test keys only): applies an event to a test session, as
     * LiveKit or the passing of time would, and answers the session after it.
     */
    sendTestSessionEvent(sessionId: string, event: TestSessionEvent, opts: RequestOptions = {}) {
      return raw.POST("/v1/test-helpers/sessions/{session_id}/events", {
        ...sessionPath(sessionId),
        body: event,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/sessions/{id}/tool-calls: every tool call of the session, oldest first, with its outcome. */
    listSessionToolCalls(sessionId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}/tool-calls", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * POST /v1/test-helpers/sessions/{id}/tool-calls (test keys only): calls a test session's webhook tool
     * as its digital human would (your endpoint gets the signed call) and answers the recorded call.
     */
    callTestTool(sessionId: string, call: TestToolCall, opts: RequestOptions = {}) {
      return raw.POST("/v1/test-helpers/sessions/{session_id}/tool-calls", {
        ...sessionPath(sessionId),
        body: call,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/sessions/{id}/analysis: the session's analysis (pending, complete, failed, deleted, or not_requested). */
    getSessionAnalysis(sessionId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}/analysis", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * GET /v1/sessions/{id}/recording: the session's recording (recording, processing, ready with a fresh
     * signed `url`, failed, deleted, or not_requested).
     */
    getSessionRecording(sessionId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/sessions/{session_id}/recording", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /** DELETE /v1/sessions/{id}/recording: erases the session's recording file now, whatever its state. */
    deleteSessionRecording(sessionId: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/sessions/{session_id}/recording", { ...sessionPath(sessionId), ...signalOption(opts.signal) });
    },

    /**
     * POST /v1/test-helpers/sessions/{id}/analysis (test keys only): sets an ended test session's analysis
     * as the LLM would have made it, and sends its session.analysis_ready event.
     */
    setTestSessionAnalysis(sessionId: string, outcome: TestSessionAnalysis, opts: RequestOptions = {}) {
      return raw.POST("/v1/test-helpers/sessions/{session_id}/analysis", {
        ...sessionPath(sessionId),
        body: outcome,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/digital-humans/{id}/memories/{participant_identity}: what the digital human remembers about the participant. */
    getParticipantMemory(digitalHumanId: string, participantIdentity: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/digital-humans/{digital_human_id}/memories/{participant_identity}", {
        params: { path: { digital_human_id: digitalHumanId, participant_identity: participantIdentity } },
        ...signalOption(opts.signal),
      });
    },

    /** DELETE /v1/digital-humans/{id}/memories/{participant_identity}: forgets the participant at once. */
    deleteParticipantMemory(digitalHumanId: string, participantIdentity: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/digital-humans/{digital_human_id}/memories/{participant_identity}", {
        params: { path: { digital_human_id: digitalHumanId, participant_identity: participantIdentity } },
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/me: the API key, its account, mode and scopes. */
    getPrincipal(opts: RequestOptions = {}) {
      return raw.GET("/v1/me", signalOption(opts.signal));
    },

    /**
     * POST /v1/digital-humans: makes a digital human of the account's own, with its persona; replays the
     * first answer for a repeated key and body (a key is generated when none is given).
     */
    createDigitalHuman(body: DigitalHumanCreate, opts: CreateOptions = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      return raw.POST("/v1/digital-humans", {
        body,
        params: { header: { "Idempotency-Key": idempotencyKey } },
        ...signalOption(opts.signal),
      });
    },

    /**
     * GET /v1/digital-humans: the account's own digital humans (newest first), then the stock ones;
     * `default` marks the one a create without `digital_human_id` gets.
     */
    listDigitalHumans(query: ListDigitalHumansQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/digital-humans", { params: { query }, ...signalOption(opts.signal) });
    },

    /** GET /v1/digital-humans/{id}: a stock one or one of the account's own. */
    getDigitalHuman(digitalHumanId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/digital-humans/{digital_human_id}", { ...digitalHumanPath(digitalHumanId), ...signalOption(opts.signal) });
    },

    /** PATCH /v1/digital-humans/{id}: changes the fields given (`null` clears one); sessions already made keep their persona. */
    updateDigitalHuman(digitalHumanId: string, body: DigitalHumanUpdate, opts: RequestOptions = {}) {
      return raw.PATCH("/v1/digital-humans/{digital_human_id}", {
        ...digitalHumanPath(digitalHumanId),
        body,
        ...signalOption(opts.signal),
      });
    },

    /** DELETE /v1/digital-humans/{id}: no session can be made with it any more. Not retried (a second try would answer 404). */
    deleteDigitalHuman(digitalHumanId: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/digital-humans/{digital_human_id}", { ...digitalHumanPath(digitalHumanId), ...signalOption(opts.signal) });
    },

    /**
     * POST /v1/documents: adds a document of the account's knowledge (answered `processing`; `ready` once
     * indexed); replays the first answer for a repeated key and body (a key is generated when none is given).
     * Its text as JSON (`content`, at most 1 MiB), or a `file` (a PDF, or text, Markdown or HTML in UTF-8,
     * at most 10 MiB), sent as `multipart/form-data`; a PDF's text is read at once, so a broken or
     * text-less one is refused (422).
     */
    createDocument(body: DocumentCreate | DocumentFileInput, opts: CreateOptions = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      const params = { header: { "Idempotency-Key": idempotencyKey } };
      if (!("file" in body)) return raw.POST("/v1/documents", { body, params, ...signalOption(opts.signal) });
      const { file, ...fields } = body;
      return raw.POST("/v1/documents", {
        // openapi-fetch types the body as the contract's multipart schema; what is sent is the form.
        body: { ...fields, file: file.filename } satisfies DocumentUpload,
        bodySerializer: () => documentForm(file, fields),
        params,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/documents: the account's documents in the key's mode, newest first, without their content. */
    listDocuments(query: ListDocumentsQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/documents", { params: { query }, ...signalOption(opts.signal) });
    },

    /** GET /v1/documents/{id}: a document's status, size and passages' count. */
    getDocument(documentId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/documents/{document_id}", { ...documentPath(documentId), ...signalOption(opts.signal) });
    },

    /** DELETE /v1/documents/{id}: no digital human is given its passages again. Not retried (a second try would answer 404). */
    deleteDocument(documentId: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/documents/{document_id}", { ...documentPath(documentId), ...signalOption(opts.signal) });
    },

    /** POST /v1/digital-humans/{id}/knowledge/search: the passages a participant's turn with this text would give it. */
    searchKnowledge(digitalHumanId: string, body: KnowledgeSearchInput, opts: RequestOptions = {}) {
      return raw.POST("/v1/digital-humans/{digital_human_id}/knowledge/search", {
        ...digitalHumanPath(digitalHumanId),
        // Sent as given: the server applies the default.
        body: body as KnowledgeSearch,
        ...signalOption(opts.signal),
      });
    },

    /** GET /v1/voices: the voices a digital human may speak with, the default first. */
    listVoices(opts: RequestOptions = {}) {
      return raw.GET("/v1/voices", signalOption(opts.signal));
    },

    /** GET /v1/usage: the account's usage per UTC day (the last 30 days by default, at most 92). */
    getUsage(query: GetUsageQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/usage", { params: { query }, ...signalOption(opts.signal) });
    },

    /** POST /v1/webhook-endpoints: registers a URL for session events; the answer shows its secret once. Not retried. */
    createWebhookEndpoint(body: WebhookEndpointCreate, opts: RequestOptions = {}) {
      return raw.POST("/v1/webhook-endpoints", { body, ...signalOption(opts.signal) });
    },

    /** GET /v1/webhook-endpoints: every endpoint of the account, without secrets. */
    listWebhookEndpoints(opts: RequestOptions = {}) {
      return raw.GET("/v1/webhook-endpoints", signalOption(opts.signal));
    },

    /** GET /v1/webhook-endpoints/{id}. */
    getWebhookEndpoint(endpointId: string, opts: RequestOptions = {}) {
      return raw.GET("/v1/webhook-endpoints/{endpoint_id}", { ...endpointPath(endpointId), ...signalOption(opts.signal) });
    },

    /** DELETE /v1/webhook-endpoints/{id}: nothing more is sent to it. Not retried (a second try would answer 404). */
    deleteWebhookEndpoint(endpointId: string, opts: RequestOptions = {}) {
      return raw.DELETE("/v1/webhook-endpoints/{endpoint_id}", { ...endpointPath(endpointId), ...signalOption(opts.signal) });
    },

    /** POST /v1/webhook-endpoints/{id}/rotate-secret: a new secret; the old one signs beside it for 24 h. Not retried. */
    rotateWebhookEndpointSecret(endpointId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/webhook-endpoints/{endpoint_id}/rotate-secret", { ...endpointPath(endpointId), ...signalOption(opts.signal) });
    },

    /** POST /v1/webhook-endpoints/{id}/enable: turns a disabled endpoint on again; idempotent. */
    enableWebhookEndpoint(endpointId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/webhook-endpoints/{endpoint_id}/enable", { ...endpointPath(endpointId), ...signalOption(opts.signal) });
    },

    /** POST /v1/webhook-endpoints/{id}/test: queues a webhook.test event for this endpoint. Not retried. */
    testWebhookEndpoint(endpointId: string, opts: RequestOptions = {}) {
      return raw.POST("/v1/webhook-endpoints/{endpoint_id}/test", { ...endpointPath(endpointId), ...signalOption(opts.signal) });
    },

    /** GET /v1/webhook-endpoints/{id}/deliveries: the endpoint's recent attempts, newest first. */
    listWebhookDeliveries(endpointId: string, query: ListWebhookDeliveriesQuery = {}, opts: RequestOptions = {}) {
      return raw.GET("/v1/webhook-endpoints/{endpoint_id}/deliveries", {
        params: { path: { endpoint_id: endpointId }, query },
        ...signalOption(opts.signal),
      });
    },
  } satisfies OperationMethods;

  return {
    /** The underlying openapi-fetch client, typed by the contract, with the same auth and retries. */
    raw,
    ...methods,
  };
}

export type DhsClient = ReturnType<typeof createClient>;
