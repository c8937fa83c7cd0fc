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
import type { ApiKeyRing } from "../domain/accounts/api-keys.js";
import type { RateLimiter } from "../domain/accounts/rate-limiter.js";
import { MAX_FILE_BYTES } from "../domain/knowledge/document-upload.js";
import type { DigitalHumanTokens } from "../livekit/digital-human-token.js";
import type { Metrics } from "../metrics.js";
import { authenticate, authorize } from "./authenticate.js";
import { contractValidator, matchedOperation, takesBody } from "./contract-validator.js";
import { type ErrorLogger, errorHandler, notFound } from "./error-handler.js";
import { multipartBody } from "./multipart-body.js";
import { OperationSecurity } from "./operation-security.js";
import { type DigitalHumanOperationHandlers, dispatch, type OperationHandlers } from "./operations.js";
import { pipeline } from "./pipeline.js";
import { rateLimit } from "./rate-limit.js";
import { jsonBody } from "./request-guards.js";
import { requestId } from "./request-id.js";
import { requestLogger } from "./request-logger.js";
import { digitalHumanRoutes } from "./routes/digital-human-routes.js";
import { probeRoutes } from "./routes/probes.js";

export const MAX_BODY_BYTES = 64 * 1024;
const isCreateDocument = (req: Request): boolean => matchedOperation(req)?.schema?.operationId === "createDocument";
/** createDocument's: 1 MiB of content, escaped as JSON (the service checks the content's own size). */
export const MAX_DOCUMENT_BODY_BYTES = 2 * 1024 * 1024;

export interface AppDependencies {
  /** Every operation an API key calls, by the features that answer them (features/feature.ts). */
  operations: OperationHandlers;
  /** Every operation the digital human calls with its token. */
  digitalHumanOperations: DigitalHumanOperationHandlers;
  /** The features' own routes outside /v1 (the local recordings store's links; none with a bucket). */
  routes: readonly Router[];
  /** Verifies the digital human's token for its session's operations. */
  digitalHumanTokens: DigitalHumanTokens;
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
      handlers: deps.digitalHumanOperations,
      tokens: deps.digitalHumanTokens,
      validator,
      rateLimiter: deps.rateLimiter,
      maxBodyBytes: MAX_BODY_BYTES,
    }),
  );
  // The features' own links (outside /v1: the signature in the link is the credential).
  for (const routes of deps.routes) app.use(noStore, routes);
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
      dispatch(deps.operations),
    ]),
  );

  app.use(probeRoutes(deps.ready));

  app.use(notFound);
  app.use(errorHandler(deps.logError));
  return app;
}
