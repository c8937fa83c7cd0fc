/**
 * What compose.ts returns (the server serve.ts runs, and the handles tests drive) and what a test or the
 * bench may give it instead of its own parts.
 */
import type { RequestListener } from "node:http";
import type { Express } from "express";
import type { ConfigError } from "./config.js";
import type { Resolver } from "./customer-webhooks/address-policy.js";
import type { AccountLimits } from "./domain/accounts/account-limits.js";
import type { AccountService } from "./domain/accounts/account-service.js";
import type { AnalysisService } from "./domain/analysis/analysis-service.js";
import type { WebhookEndpointService } from "./domain/customer-webhooks/endpoint-service.js";
import type { WebhookSender, WebhookStore } from "./domain/customer-webhooks/ports.js";
import type { DigitalHumanService } from "./domain/digital-humans/digital-human-service.js";
import type { RoomService, SessionStore } from "./domain/sessions/ports.js";
import type { SessionService } from "./domain/sessions/session-service.js";
import type { Recordings } from "./features/recordings.js";
import type { Metrics } from "./metrics.js";
import type { Tracing } from "./tracing/tracing.js";
import type { CustomerWebhookDispatcher } from "./workers/customer-webhook-dispatcher.js";
import type { DocumentProcessor } from "./workers/document-processor.js";
import type { HistoryWriter } from "./workers/history-writer.js";
import type { RoomReconciler } from "./workers/room-reconciler.js";
import type { TimerSweeper } from "./workers/timer-sweeper.js";

export interface Composed {
  /** The API (Express); `handler` serves it with LiveKit's webhooks ahead of it. */
  app: Express;
  /** What the HTTP server runs: LiveKit's webhooks on their own path, then the app. */
  handler: RequestListener;
  metrics: Metrics;
  store: SessionStore;
  sessions: SessionService;
  sweeper: TimerSweeper;
  /** Deletes rooms whose session is terminal or missing. */
  reconciler: RoomReconciler;
  webhookStore: WebhookStore;
  webhookEndpoints: WebhookEndpointService;
  accounts: AccountService;
  digitalHumans: DigitalHumanService;
  /** Delivers customer webhook events. */
  dispatcher: CustomerWebhookDispatcher;
  /** Writes ended sessions to the history database (on Redis and PostgreSQL). */
  historyWriter: HistoryWriter | undefined;
  /** Turns added documents into passages. */
  documentProcessor: DocumentProcessor;
  /** Sessions' recordings: serve tells them the port it listens on. */
  recordings: Recordings;
  /** Sessions' analyses, run in the background when their timers fire. */
  analysis: AnalysisService;
  /**
   * Resolves once the store answers and holds this server's key layout (a fresh Redis is given it), or
   * after timeoutMs (false then; asked every pollMs). The store connects in the background and fails fast
   * while it cannot, so a process that listened at once would answer its first requests 503. Rejects with
   * a ConfigError when Redis holds another layout: nothing may be read or written then. Until the layout
   * is confirmed the replica is unready.
   */
  waitForStore(timeoutMs: number, pollMs?: number): Promise<boolean>;
  /**
   * Checks LiveKit's credentials with one cheap call. While LiveKit cannot be reached, the replica is
   * unready (GET /readyz 503) and the check is repeated every few seconds until it answers.
   */
  verifyLiveKit(): Promise<"ok" | "refused" | "unreachable">;
  /**
   * Reads the operator's files again (API keys with account limits, the digital human catalog) and swaps
   * them in at once; a file that does not pass keeps the old ones in force. Returns the error, if any.
   */
  reloadOperatorFiles(): ConfigError | undefined;
  /**
   * Starts the work every replica repeats (serve calls it once listening): the timer sweeper and each
   * feature's background work. Tests start the parts they drive, the handles above.
   */
  start(): void;
  /**
   * Stops the sweeper (no timer fires into a stopped feature), then every feature's background work
   * (waiting for work in flight), closes the features, LiveKit's client and the stores.
   */
  close(): Promise<void>;
}

export interface ComposeOverrides {
  rooms?: RoomService;
  store?: SessionStore;
  /** Resolves webhook hosts (tests give names their own addresses, without DNS). */
  resolver?: Resolver;
  webhookSender?: WebhookSender;
  /** Spans (main.ts gives OpenTelemetry's when tracing is on); none by default. */
  tracing?: Tracing;
  /** The accounts' limits, instead of the configuration's (the bench seeds more sessions than any account may hold open). */
  accounts?: AccountLimits;
  /** The recordings' clock (tests move it past a recording's retention). */
  recordingClock?: () => Date;
  /** The webhook dispatcher's clock, by which deliveries fall due and endpoints fail (tests move it past a retry). */
  webhookClock?: () => number;
  /** The timer sweeper's clock, by which session timers fall due (tests move it past a timeout). */
  timerClock?: () => number;
}
