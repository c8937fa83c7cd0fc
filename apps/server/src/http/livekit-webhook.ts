/**
 * POST /livekit/webhook, LiveKit's signed events, answered by a plain node:http handler in front of the
 * Express app (same server, same port). It is LiveKit's format, not an operation of the contract, and it
 * is most of the service's traffic: three quarters of a session's CPU went to its events, Express's
 * router, helmet and the request log among it. So it does here only what it needs, with the same answers
 * the API gives: its own request id and security headers, its own bounded body reading (413 past 64 KiB),
 * ApiError bodies through the error handler's one mapping, its own log line and metrics, and the request's
 * span named by the route. Every other request, and any other method on this path, goes to Express.
 *
 * The signature's JWT is checked before the body is read, so an unsigned or forged delivery is refused
 * (401, that it was not verified; why goes to the log line) without reading it. Events about rooms this
 * service did not make are acknowledged and ignored. Refusals log at warn; a delivery that changed a
 * session at info; a duplicate, an event that changed nothing and a foreign room's at debug, so LiveKit's
 * retries and a shared LiveKit's other tenants do not fill the logs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";
import type { Logger } from "pino";
import { AppError } from "../domain/app-error.js";
import type { SessionService } from "../domain/sessions/session-service.js";
import { InconsistentRoomError, InvalidWebhookError, type LiveKitEventReceiver, sessionRoomEvent } from "../livekit/event-receiver.js";
import type { Metrics } from "../metrics.js";
import type { RequestLocals } from "../tracing/tracing.js";
import { type ErrorLogger, errorAnswer, toAppError } from "./error-handler.js";
import { newRequestId } from "./request-id.js";
import { requestLineLevel } from "./request-logger.js";

export const LIVEKIT_WEBHOOK_PATH = "/livekit/webhook";

export interface LiveKitWebhookDeps {
  receiver: LiveKitEventReceiver;
  sessions: SessionService;
  maxBodyBytes: number;
  metrics?: Metrics | undefined;
  logger?: Logger | undefined;
  logError: ErrorLogger;
}

/** What the delivery came to, for its log line's level and reason. */
interface Outcome {
  reason?: string;
  /** Nothing changed (a duplicate, a no-op, a foreign room): logged at debug. */
  quiet?: boolean;
}

const OK_BODY = JSON.stringify({ status: "ok" });
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The handler: true when it took the request (a POST to /livekit/webhook), false to leave it to Express.
 */
export function livekitWebhookHandler(deps: LiveKitWebhookDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const securityHeaders = helmetHeaders();
  const log = deps.logger?.child({}, { redact: [] });
  return (req, res) => {
    if (req.method !== "POST" || pathOf(req.url) !== LIVEKIT_WEBHOOK_PATH) return false;
    const started = performance.now();
    const requestId = newRequestId();
    const locals: RequestLocals = { route: LIVEKIT_WEBHOOK_PATH };
    // Read by the tracing's request hook (otel-sdk.ts), as Express's res.locals are.
    (res as ServerResponse & { locals: RequestLocals }).locals = locals;
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    res.setHeader("X-Request-ID", requestId);
    receive(req, deps).then(
      (outcome) => {
        res.statusCode = 200;
        res.setHeader("Content-Type", JSON_TYPE);
        res.end(OK_BODY);
        logLine(outcome);
      },
      (error: unknown) => {
        const appError = toAppError(error);
        const outcome: Outcome = error instanceof Refused ? { reason: error.reason } : {};
        const { status, body } = errorAnswer(res, appError, requestId);
        if (status >= 500) deps.logError(error, requestId);
        locals.errorCode = appError.code;
        res.statusCode = status;
        res.setHeader("Content-Type", JSON_TYPE);
        res.end(JSON.stringify(body));
        logLine(outcome);
      },
    );
    function logLine(outcome: Outcome): void {
      const status = res.statusCode;
      const elapsed = performance.now() - started;
      deps.metrics?.request(LIVEKIT_WEBHOOK_PATH, "POST", status, elapsed / 1000);
      if (!log) return;
      const line = {
        request_id: requestId,
        req: { method: "POST", url: LIVEKIT_WEBHOOK_PATH },
        route: LIVEKIT_WEBHOOK_PATH,
        res: { status },
        duration_ms: Math.round(elapsed),
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      };
      log[requestLineLevel(status, outcome.reason, outcome.quiet)](line, "request");
    }
    return true;
  };
}

/** A refusal whose reason goes to the log line, never to the caller. */
class Refused extends AppError {
  constructor(readonly reason: string) {
    super("unauthorized", "Webhook not verified.");
  }
}

async function receive(req: IncomingMessage, deps: LiveKitWebhookDeps): Promise<Outcome> {
  const { receiver, metrics } = deps;
  const refuse = (error: unknown): never => {
    if (!(error instanceof InvalidWebhookError)) throw error;
    metrics?.webhook("unknown", "rejected");
    throw new Refused(error.message);
  };
  const signedSha256 = await receiver.checkAuthorization(req.headers.authorization).catch(refuse);
  const raw = await readBody(req, deps.maxBodyBytes);
  let event: ReturnType<LiveKitEventReceiver["parse"]>;
  try {
    event = receiver.parse(raw, signedSha256);
  } catch (error) {
    return refuse(error);
  }
  const name = event.event || "unknown";
  let roomEvent: ReturnType<typeof sessionRoomEvent>;
  try {
    roomEvent = sessionRoomEvent(event);
  } catch (error) {
    if (!(error instanceof InconsistentRoomError)) throw error;
    // Signed, so LiveKit's secret made it: acknowledged (a retry would not change it), applied to no
    // session, and said in the log line as a warning.
    metrics?.webhook(name, "rejected");
    return { reason: error.message };
  }
  if (!roomEvent) {
    metrics?.webhook(name, "ignored");
    return { quiet: true };
  }
  const outcome = await deps.sessions.onLiveKitEvent(roomEvent.id, roomEvent.accountId, roomEvent.sessionId, roomEvent.event);
  metrics?.webhook(name, "applied");
  return { quiet: outcome !== "changed" };
}

/** The body, at most `maxBytes` (413 beyond, without reading the rest). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new AppError("payload_too_large", `The request body exceeds ${maxBytes} bytes.`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    // A caller that goes away mid-body is its own problem, not the service's: answered (if anyone still
    // listens) as the API answers a body it could not read.
    const unreadable = (why: string) => () =>
      reject(new AppError("validation_failed", [{ location: "body", path: "", message: `could not be read (${why})` }]));
    req.once("error", unreadable("request error"));
    req.once("aborted", unreadable("request aborted"));
  });
}

function pathOf(url: string | undefined): string {
  const query = url?.indexOf("?") ?? -1;
  return query === -1 ? (url ?? "") : (url as string).slice(0, query);
}

/** The headers helmet sets on every answer of the Express app, set here alike (read from helmet once). */
function helmetHeaders(): [string, string | number | readonly string[]][] {
  const headers: [string, string | number | readonly string[]][] = [];
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.push([name, value]),
    removeHeader: () => {},
  };
  helmet()({} as never, res as never, () => {});
  return headers;
}
