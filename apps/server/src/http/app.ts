/**
 * The Express application, in the order the contract's guide ("API keys and scopes", "Errors") needs:
 * security headers and a request id on every answer; then the API, one layer: authentication (401) and
 * the rate limit before anything else, the contract's match of the operation, authorization by its scopes
 * (403), the body parsed and validated against the contract (413, 422), and the operation's handler,
 * picked by that same match; then the probes and LiveKit's signed webhooks; then one 404 and one error
 * handler, so every error from every route, unknown ones included, is an ApiError.
 */

import { openapiDocumentPath } from "@dhs/contract";
import express, { type Express, type Request, type RequestHandler, type Router } from "express";
import helmet from "helmet";
import type { Logger } from "pino";
import type { AccountService } from "../domain/accounts/account-service.js";
import type { ApiKeyRing } from "../domain/accounts/api-keys.js";
import type { RateLimiter } from "../domain/accounts/rate-limiter.js";
import type { SessionAnalyses } from "../domain/analysis/session-analyses.js";
import type { ConversationService } from "../domain/conversation/conversation-service.js";
import type { WebhookEndpointService } from "../domain/customer-webhooks/endpoint-service.js";
import type { DigitalHumanService } from "../domain/digital-humans/digital-human-service.js";
import type { DocumentService } from "../domain/knowledge/document-service.js";
import { MAX_FILE_BYTES } from "../domain/knowledge/document-upload.js";
import type { SessionKnowledge } from "../domain/knowledge/session-knowledge.js";
import type { ParticipantMemories } from "../domain/memories/participant-memories.js";
import type { RecordingJobs } from "../domain/recordings/recording-jobs.js";
import type { SessionRecordings } from "../domain/recordings/session-recordings.js";
import type { SessionService } from "../domain/sessions/session-service.js";
import type { ToolCallService } from "../domain/tools/tool-call-service.js";
import type { TranscriptService } from "../domain/transcripts/transcript-service.js";
import type { DigitalHumanTokens } from "../livekit/digital-human-token.js";
import type { Metrics } from "../metrics.js";
import { authenticate, authorize } from "./authenticate.js";
import { contractValidator, matchedOperation, takesBody } from "./contract-validator.js";
import type { Cursors } from "./cursor.js";
import { type ErrorLogger, errorHandler, notFound } from "./error-handler.js";
import { multipartBody } from "./multipart-body.js";
import { OperationSecurity } from "./operation-security.js";
import { dispatch } from "./operations.js";
import { pipeline } from "./pipeline.js";
import { rateLimit } from "./rate-limit.js";
import { jsonBody } from "./request-guards.js";
import { requestId } from "./request-id.js";
import { requestLogger } from "./request-logger.js";
import { accountOperations } from "./routes/account.js";
import { analysisOperations } from "./routes/analysis.js";
import { conversationJobOperations, conversationOperations } from "./routes/conversation.js";
import { digitalHumanRoutes } from "./routes/digital-human-routes.js";
import { digitalHumanOperations } from "./routes/digital-humans.js";
import { documentOperations, knowledgeJobOperations } from "./routes/documents.js";
import { memoryOperations } from "./routes/memories.js";
import { principalOperations } from "./routes/principal.js";
import { probeRoutes } from "./routes/probes.js";
import { recordingJobOperations, recordingOperations } from "./routes/recordings.js";
import { sessionOperations } from "./routes/sessions.js";
import { toolCallJobOperations, toolCallOperations } from "./routes/tool-calls.js";
import { transcriptJobOperations, transcriptOperations } from "./routes/transcripts.js";
import { webhookEndpointOperations } from "./routes/webhook-endpoints.js";

export const MAX_BODY_BYTES = 64 * 1024;
const isCreateDocument = (req: Request): boolean => matchedOperation(req)?.schema?.operationId === "createDocument";
/** createDocument's: 1 MiB of content, escaped as JSON (the service checks the content's own size). */
export const MAX_DOCUMENT_BODY_BYTES = 2 * 1024 * 1024;

export interface AppDependencies {
  sessions: SessionService;
  transcripts: TranscriptService;
  conversation: ConversationService;
  tools: ToolCallService;
  analyses: SessionAnalyses;
  memories: ParticipantMemories;
  recordings: SessionRecordings;
  /** The recording job's operations (startSessionRecording, createRecordingUpload, finishSessionRecording). */
  recordingJobs: RecordingJobs;
  /** The local recordings store's own upload and download routes; undefined with a bucket. */
  recordingFiles?: Router | undefined;
  /** Verifies the digital human's token for its session's transcript and conversation. */
  digitalHumanTokens: DigitalHumanTokens;
  webhookEndpoints: WebhookEndpointService;
  accounts: AccountService;
  digitalHumans: DigitalHumanService;
  documents: DocumentService;
  /** What a session's digital human finds in its documents for a turn. */
  sessionKnowledge: SessionKnowledge;
  /** Seals and opens the lists' cursors (http/cursor.ts). */
  cursors: Cursors;
  /** Resolves when this replica can serve (GET /readyz 200), rejects with the dependency that cannot. */
  ready: () => Promise<void>;
  apiKeys: ApiKeyRing;
  metrics?: Metrics;
  /** Undefined: no rate limits. */
  rateLimiter?: RateLimiter | undefined;
  logger?: Logger;
  logError: ErrorLogger;
  validateResponses?: boolean;
  /** The contract to validate against; the one shipped with @dhs/contract by default. */
  openapiPath?: string;
}

export function createApp(deps: AppDependencies): Express {
  const openapiPath = deps.openapiPath ?? openapiDocumentPath;
  const app = express();
  // Routing is exact, as the contract spells each path: /V1/Sessions or /v1/sessions/ is an unknown
  // route, for Express and for the validator (which reads these settings), never a second spelling.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");

  // No CORS middleware on purpose: the API is for servers, and browsers must not call it with a key.
  app.use(helmet());
  app.use(requestId);
  if (deps.logger) app.use(requestLogger(deps.logger, deps.metrics?.request));

  const validator = contractValidator({
    apiSpec: openapiPath,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: deps.validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    validateApiSpec: false,
    ajvFormats: { mode: "full" },
    // createDocument's multipart body is read by multipart-body.ts, within its bounds; the validator checks its text parts.
    fileUploader: false,
  });
  const noStore: RequestHandler = (_req, res, next) => {
    // Answers carry participant tokens: no cache may keep them.
    res.setHeader("Cache-Control", "no-store");
    next();
  };
  // The digital human's own operations, ahead of the API keys' pipeline (digital-human-routes.ts says why).
  app.use(
    digitalHumanRoutes({
      handlers: {
        ...transcriptJobOperations(deps.transcripts),
        ...conversationJobOperations(deps.conversation),
        ...toolCallJobOperations(deps.tools),
        ...knowledgeJobOperations(deps.sessionKnowledge),
        ...recordingJobOperations(deps.recordingJobs),
      },
      tokens: deps.digitalHumanTokens,
      validator,
      rateLimiter: deps.rateLimiter,
      maxBodyBytes: MAX_BODY_BYTES,
    }),
  );
  // The local recordings store's links (outside /v1: the signature in the link is the credential).
  if (deps.recordingFiles) app.use(noStore, deps.recordingFiles);
  // The whole API is one layer of Express's router (pipeline.ts says why), its steps in this order.
  app.use(
    "/v1",
    pipeline([
      noStore,
      authenticate(deps.apiKeys),
      ...(deps.rateLimiter ? [rateLimit(deps.rateLimiter)] : []),
      ...validator.match,
      authorize(OperationSecurity.fromFile(openapiPath)),
      multipartBody({ maxFileBytes: MAX_FILE_BYTES, for: isCreateDocument }),
      jsonBody(MAX_BODY_BYTES, takesBody, { limitBytes: MAX_DOCUMENT_BODY_BYTES, for: isCreateDocument }),
      ...validator.validate,
      dispatch({
        ...sessionOperations(deps.sessions, deps.cursors),
        ...transcriptOperations(deps.transcripts, deps.cursors),
        ...conversationOperations(deps.conversation),
        ...toolCallOperations(deps.tools),
        ...analysisOperations(deps.analyses),
        ...memoryOperations(deps.memories),
        ...recordingOperations(deps.recordings),
        ...webhookEndpointOperations(deps.webhookEndpoints, deps.cursors),
        ...accountOperations(deps.accounts),
        ...digitalHumanOperations(deps.digitalHumans, deps.cursors),
        ...documentOperations(deps.documents, deps.cursors),
        ...principalOperations(deps.accounts),
      }),
    ]),
  );

  app.use(probeRoutes(deps.ready));

  app.use(notFound);
  app.use(errorHandler(deps.logError));
  return app;
}
