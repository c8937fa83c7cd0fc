/**
 * The digital human's operations (tag *Digital human workers*): appendTranscriptSegments,
 * pullConversation, reportConversation, runToolCall, searchSessionKnowledge and the recording's three. Under /v1 and in the contract like every operation, but
 * answered ahead of the API-key pipeline: their caller holds no API key but a LiveKit token bound to the
 * session's room (livekit/digital-human-token.ts), checked before the body is read (401, and the
 * connection learns nothing else), then the session's rate limit, the contract's match and validation,
 * and the call.
 */
import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import type { RateLimiter } from "../../domain/accounts/rate-limiter.js";
import { AppError } from "../../domain/app-error.js";
import type { ConversationService } from "../../domain/conversation/conversation-service.js";
import type { SessionKnowledge } from "../../domain/knowledge/session-knowledge.js";
import type { RecordingJobs } from "../../domain/recordings/recording-jobs.js";
import type { ToolCallService } from "../../domain/tools/tool-call-service.js";
import type { TranscriptService } from "../../domain/transcripts/transcript-service.js";
import { type DigitalHumanTokens, InvalidDigitalHumanTokenError } from "../../livekit/digital-human-token.js";
import type { ContractValidator } from "../contract-validator.js";
import { takesBody } from "../contract-validator.js";
import { answer } from "../operation-handler.js";
import { pipeline } from "../pipeline.js";
import { rateLimit } from "../rate-limit.js";
import { jsonBody } from "../request-guards.js";
import { setRefusalReason } from "../request-logger.js";
import { exactRouter } from "./exact-router.js";

type DigitalHumanOperationId =
  | "appendTranscriptSegments"
  | "pullConversation"
  | "reportConversation"
  | "runToolCall"
  | "searchSessionKnowledge"
  | "startSessionRecording"
  | "createRecordingUpload"
  | "finishSessionRecording";

const RECORDING_STEPS = {
  start: "startSessionRecording",
  upload: "createRecordingUpload",
  finish: "finishSessionRecording",
} as const satisfies Record<string, DigitalHumanOperationId>;

// Matched without a route parameter: the contract's match reads (and decodes) the session id, so a
// malformed one is answered as everywhere else in /v1, never by Express's own parameter decoding.
const ROUTES: readonly { operationId: DigitalHumanOperationId; path: RegExp; route: string }[] = [
  {
    operationId: "appendTranscriptSegments",
    path: /^\/v1\/sessions\/[^/]+\/transcript\/segments$/,
    route: "/v1/sessions/{session_id}/transcript/segments",
  },
  {
    operationId: "pullConversation",
    path: /^\/v1\/sessions\/[^/]+\/conversation\/pull$/,
    route: "/v1/sessions/{session_id}/conversation/pull",
  },
  {
    operationId: "reportConversation",
    path: /^\/v1\/sessions\/[^/]+\/conversation\/reports$/,
    route: "/v1/sessions/{session_id}/conversation/reports",
  },
  {
    operationId: "runToolCall",
    path: /^\/v1\/sessions\/[^/]+\/conversation\/tool-calls$/,
    route: "/v1/sessions/{session_id}/conversation/tool-calls",
  },
  {
    operationId: "searchSessionKnowledge",
    path: /^\/v1\/sessions\/[^/]+\/conversation\/knowledge$/,
    route: "/v1/sessions/{session_id}/conversation/knowledge",
  },
  ...(["start", "upload", "finish"] as const).map((step) => ({
    operationId: RECORDING_STEPS[step],
    path: new RegExp(`^\\/v1\\/sessions\\/[^/]+\\/recording\\/${step}$`),
    route: `/v1/sessions/{session_id}/recording/${step}`,
  })),
];

export function digitalHumanRoutes(deps: {
  transcripts: TranscriptService;
  conversation: ConversationService;
  tools: ToolCallService;
  knowledge: SessionKnowledge;
  recordings: RecordingJobs;
  tokens: DigitalHumanTokens;
  validator: ContractValidator;
  /** Each session's digital human is limited as an API key is ("/" is in no key id, so no bucket is shared). */
  rateLimiter: RateLimiter | undefined;
  maxBodyBytes: number;
}): Router {
  const router = exactRouter();
  const refuse = (res: Response, next: NextFunction, reason: string) => {
    setRefusalReason(res, reason);
    next(unauthorized());
  };
  const authenticate =
    (operationId: DigitalHumanOperationId, route: string): RequestHandler =>
    async (req: Request, res: Response, next: NextFunction) => {
      res.setHeader("Cache-Control", "no-store");
      // Named from the start, so the request's log line, metrics and span say which operation a 401 refused.
      res.locals.operationId = operationId;
      res.locals.route = route;
      try {
        const { sessionId, identity } = await deps.tokens.verify(req.get("Authorization"));
        res.locals.transcriptSession = sessionId;
        res.locals.tokenIdentity = identity;
        next();
      } catch (error) {
        if (!(error instanceof InvalidDigitalHumanTokenError)) throw error;
        refuse(res, next, error.message);
      }
    };
  // The token is for one room: another session's path is not this token's to write (checked once the
  // contract matched the path, before the body is read).
  const ownSession: RequestHandler = (req, res, next) => {
    if (String(req.params.session_id).toLowerCase() !== tokenSession(res)) {
      return refuse(res, next, "the token is for another session's room");
    }
    next();
  };
  // The job speaks for itself only: the identity a pull names (where the service's nudges go) and its
  // reports are signed for must be the token's.
  const ownIdentity = (res: Response, named: string) => {
    if (named === res.locals.tokenIdentity) return;
    setRefusalReason(res, "the token is for another participant identity");
    throw unauthorized();
  };
  const handlers: Record<DigitalHumanOperationId, RequestHandler> = {
    appendTranscriptSegments: answer("appendTranscriptSegments", async ({ body }, res) => ({
      body: await deps.transcripts.append(tokenSession(res), body),
    })),
    pullConversation: answer("pullConversation", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.conversation.job.pull(tokenSession(res), body) };
    }),
    reportConversation: answer("reportConversation", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.conversation.job.report(tokenSession(res), body) };
    }),
    runToolCall: answer("runToolCall", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.tools.run(tokenSession(res), body) };
    }),
    searchSessionKnowledge: answer("searchSessionKnowledge", async ({ body }, res) => ({
      body: await deps.knowledge.search(tokenSession(res), body),
    })),
    startSessionRecording: answer("startSessionRecording", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.recordings.start(tokenSession(res), body.participant_identity) };
    }),
    createRecordingUpload: answer("createRecordingUpload", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.recordings.uploadTarget(tokenSession(res), body.participant_identity) };
    }),
    finishSessionRecording: answer("finishSessionRecording", async ({ body }, res) => {
      ownIdentity(res, body.participant_identity);
      return { body: await deps.recordings.finish(tokenSession(res), body) };
    }),
  };
  for (const { operationId, path, route } of ROUTES) {
    router.post(
      path,
      pipeline([
        authenticate(operationId, route),
        ...(deps.rateLimiter ? [rateLimit(deps.rateLimiter, (res) => `session/${tokenSession(res)}`)] : []),
        ...deps.validator.match,
        ownSession,
        jsonBody(deps.maxBodyBytes, takesBody),
        ...deps.validator.validate,
        handlers[operationId],
      ]),
    );
  }
  return router;
}

/** The session whose room the request's token is for, once `authenticate` verified it. */
function tokenSession(res: Response): string {
  const session: unknown = res.locals.transcriptSession;
  if (typeof session !== "string") throw new Error("transcript segments reached without a digital human token");
  return session;
}

function unauthorized(): AppError {
  return new AppError(
    "unauthorized",
    "Missing or invalid digital human token: send a LiveKit access token with an agent grant for the session's room, signed for the participant identity the request names, as the Authorization header's bearer token.",
    { headers: { "WWW-Authenticate": 'Bearer realm="dhs-digital-human"' } },
  );
}
