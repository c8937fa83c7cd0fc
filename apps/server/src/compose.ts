/**
 * The composition root: takes the stores from createStores (store/create-stores.ts), builds the LiveKit
 * adapters and each feature (features/: its services, operations, timers and background work) in the
 * order they need each other, and assembles their list into the Express app, the timer sweeper, start
 * and close. main.ts runs it; integration tests build the same thing with their own configuration.
 */
import type { RequestListener } from "node:http";
import type { Logger } from "pino";
import type { Composed, ComposeOverrides } from "./composed.js";
import { operatorFilesReloader } from "./config/operator-files.js";
import type { Config } from "./config.js";
import { AccountLimits } from "./domain/accounts/account-limits.js";
import { ApiKeyRing } from "./domain/accounts/api-keys.js";
import { ConversationChanges } from "./domain/conversation/conversation-changes.js";
import type { ConversationServiceDeps } from "./domain/conversation/conversation-service.js";
import { DependencyUnavailableError } from "./domain/dependency-errors.js";
import { DigitalHumanCatalog } from "./domain/digital-humans/digital-human-catalog.js";
import { maxDurationSOf } from "./domain/sessions/session-deps.js";
import { accountsOf } from "./features/accounts.js";
import { analysisOf } from "./features/analysis.js";
import { conversationOf } from "./features/conversation.js";
import { digitalHumansOf } from "./features/digital-humans.js";
import { assembleFeatures } from "./features/feature.js";
import { historyOf } from "./features/history.js";
import { knowledgeOf } from "./features/knowledge.js";
import { memoriesOf } from "./features/memories.js";
import { recordingsOf } from "./features/recordings.js";
import { timerSweeperOf } from "./features/session-timers.js";
import { sessionSettingsOf, sessionsOf } from "./features/sessions.js";
import { toolsOf } from "./features/tools.js";
import { transcriptsOf } from "./features/transcripts.js";
import { webhooksOf } from "./features/webhooks.js";
import { createApp, MAX_BODY_BYTES } from "./http/app.js";
import { Cursors } from "./http/cursor.js";
import { livekitWebhookHandler } from "./http/livekit-webhook.js";
import { requestErrorLogger } from "./http/request-error-logger.js";
import { LiveKitCredentialCheck } from "./livekit/credential-check.js";
import { DigitalHumanTokens } from "./livekit/digital-human-token.js";
import { LiveKitEventReceiver } from "./livekit/event-receiver.js";
import { LiveKitRoomService } from "./livekit/room-service.js";
import { LiveKitTokenIssuer } from "./livekit/token-issuer.js";
import { Metrics } from "./metrics.js";
import { createStores } from "./store/create-stores.js";
import { sessionTimers } from "./workers/timer-sweeper.js";

export type { Composed, ComposeOverrides } from "./composed.js";

export function compose(config: Config, logger: Logger, overrides: ComposeOverrides = {}): Composed {
  const metrics = new Metrics();
  const { tracing } = overrides;
  const stores = createStores(config, { logger, metrics, tracing, sessions: overrides.store });
  const { sessions: store, webhooks: webhookStore } = stores;
  // A test's own RoomService has no credentials to check.
  const livekit = overrides.rooms ? undefined : new LiveKitRoomService({ ...config.livekit }, config.redisKeyPrefix, tracing);
  const rooms = overrides.rooms ?? (livekit as LiveKitRoomService);
  const credentials = new LiveKitCredentialCheck(livekit, logger);
  // Every replica holds LiveKit's secret: the cursors' key is derived from it (a rotation of the
  // secret voids the cursors handed out before it, which callers then get again from the first page).
  const cursors = new Cursors(config.livekit.apiSecret);

  const hooks = webhooksOf(config, {
    store: webhookStore,
    cursors,
    logger,
    registry: metrics.registry,
    resolver: overrides.resolver,
    sender: overrides.webhookSender,
    now: overrides.webhookClock,
    tracing,
  });
  const { eventRetainMs, nudge } = hooks;
  const apiKeys = new ApiKeyRing(config.apiKeys.records);
  const catalog = new DigitalHumanCatalog(config.digitalHumans.entries, config.digitalHumans.voices, config.digitalHumans.hearingLanguages);
  const limits =
    overrides.accounts ?? new AccountLimits(config.accountMaxOpenSessions, config.apiKeys.accounts, config.testMaxOpenSessions);
  const settings = sessionSettingsOf(config);
  const { durations, idempotencyKeyTtlMs } = settings;
  const memories = memoriesOf({ store: stores.memories, digitalHumans: stores.digitalHumans, retentionMs: config.memoryRetentionMs });
  const digitalHumans = digitalHumansOf(
    {
      memories: memories.memories,
      store: stores.digitalHumans,
      catalog,
      limit: () => config.accountMaxDigitalHumans,
      maxSessionDurationS: (principal) => maxDurationSOf(settings, principal.accountId),
      idempotencyKeyTtlMs,
      endpoints: webhookStore,
      documents: stores.knowledge,
    },
    cursors,
  );
  const knowledge = knowledgeOf({
    store: stores.knowledge,
    sessions: store,
    cursors,
    digitalHumans: digitalHumans.digitalHumans,
    webhooks: webhookStore,
    eventRetainMs,
    idempotencyKeyTtlMs,
    intervalMs: config.sweepIntervalMs * 10,
    logger,
    onEventQueued: nudge,
  });
  const accounts = accountsOf({
    store,
    accounts: limits,
    rateLimit: config.rateLimit.enabled ? { perSecond: config.rateLimit.perSecond, burst: config.rateLimit.burst } : undefined,
  });
  const conversationDeps: ConversationServiceDeps = {
    sessions: store,
    store: stores.conversations,
    // A test's own RoomService has no data channel: its jobs pull on their own.
    nudger: livekit,
    limits: config.conversation,
    durations,
    eventRetainMs,
    onEventsQueued: nudge,
    onToolCallSettled: (call) => tools.settled(call),
    onNudgeFailed: (err) =>
      logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "conversation nudge failed"),
  };
  const conversation = conversationOf(conversationDeps);
  const sessions = sessionsOf(
    {
      store,
      participantTurns: conversation.conversation,
      rooms,
      tokens: new LiveKitTokenIssuer(config.livekit.apiKey, config.livekit.apiSecret),
      catalog,
      personas: digitalHumans.digitalHumans,
      memories: memories.memories,
      accounts: limits,
      settings: { ...settings, eventRetainMs },
      onBackgroundError: (err, what) => logger.warn({ err }, `background ${what} failed`),
      onEventsQueued: nudge,
      metrics,
      ...(tracing ? { tracing } : {}),
    },
    { config, cursors, logger, metrics },
  );
  const tools = toolsOf(
    {
      sessions: store,
      store: stores.conversations,
      changes: new ConversationChanges(conversationDeps),
      endpoints: webhookStore,
      sender: hooks.toolCalls,
      history: stores.toolCallHistory,
      endSession: (session) => sessions.sessions.endByDigitalHuman(session.account_id, session.id),
    },
    metrics.registry,
  );
  const transcripts = transcriptsOf(
    {
      sessions: store,
      transcripts: stores.transcripts,
      durations,
      graceMs: config.transcriptGraceS * 1000,
      eventRetainMs,
      onEventsQueued: nudge,
      // What was derived from the transcript, and the recording of the same words.
      derived: {
        erase: async (accountId, sessionId) => {
          await analysis.analysis.erase(accountId, sessionId);
          await recordings.service.erase(accountId, sessionId);
        },
      },
    },
    cursors,
  );
  const analysis = analysisOf(config.analysis, {
    memories: memories.memories,
    sessions: store,
    transcripts: stores.transcripts,
    durations,
    eventRetainMs,
    logger,
    onEventsQueued: nudge,
    registry: metrics.registry,
  });
  const recordings = recordingsOf(config.recordings, config.port, {
    sessions: store,
    transcripts: stores.transcripts,
    expiries: stores.recordingExpiries,
    durations,
    eventRetainMs,
    secret: config.livekit.apiSecret,
    logger,
    ...(overrides.recordingClock ? { now: overrides.recordingClock } : {}),
    onEventsQueued: nudge,
    registry: metrics.registry,
  });
  const history = historyOf(config, stores, logger, metrics);

  // Every feature of the service: what each answers, fires, serves and runs. One the list leaves out
  // does not compile while an operation or a timer has no other feature to answer it.
  const features = assembleFeatures([
    sessions.feature,
    transcripts.feature,
    conversation.feature,
    tools.feature,
    analysis.feature,
    memories.feature,
    recordings.feature,
    hooks.feature,
    accounts.feature,
    digitalHumans.feature,
    knowledge.feature,
    history.feature,
  ]);
  const sweeper = timerSweeperOf(config, store, sessionTimers(sessions.sessions, features.timers), logger, metrics, overrides.timerClock);

  const logError = requestErrorLogger(logger, metrics);
  const app = createApp({
    operations: features.operations,
    digitalHumanOperations: features.digitalHumanOperations,
    routes: features.routes,
    digitalHumanTokens: new DigitalHumanTokens(config.livekit.apiKey, config.livekit.apiSecret),
    // Ready while the store answers (with its layout confirmed) and, once main asked for it, LiveKit
    // accepted our credentials.
    ready: async () => {
      await stores.connection.ready();
      if (!credentials.verified) throw new DependencyUnavailableError("livekit");
    },
    apiKeys,
    rateLimiter: stores.rateLimiter,
    metrics,
    logger,
    logError,
    validateResponses: config.validateResponses,
  });
  // LiveKit's webhooks are answered ahead of Express (http/livekit-webhook.ts); everything else is the app's.
  const livekitWebhook = livekitWebhookHandler({
    receiver: new LiveKitEventReceiver(config.livekit.apiKey, config.livekit.apiSecret),
    sessions: sessions.sessions,
    maxBodyBytes: MAX_BODY_BYTES,
    metrics,
    logger,
    logError,
  });
  const handler: RequestListener = (req, res) => {
    if (!livekitWebhook(req, res)) app(req, res);
  };

  return {
    app,
    handler,
    metrics,
    store,
    sessions: sessions.sessions,
    sweeper,
    reconciler: sessions.reconciler,
    webhookStore,
    webhookEndpoints: hooks.endpoints,
    accounts: accounts.accounts,
    digitalHumans: digitalHumans.digitalHumans,
    dispatcher: hooks.dispatcher,
    historyWriter: history.writer,
    documentProcessor: knowledge.processor,
    analysis: analysis.analysis,
    recordings,
    waitForStore: (timeoutMs, pollMs = 50) => stores.connection.waitFor(timeoutMs, pollMs),
    verifyLiveKit: () => credentials.verify(),
    reloadOperatorFiles: operatorFilesReloader(
      { apiKeysFile: config.apiKeys.file, digitalHumansFile: config.digitalHumans.file },
      { apiKeys, accounts: limits, catalog },
      logger,
    ),
    start: () => {
      sweeper.start();
      features.start();
    },
    close: async () => {
      credentials.stop();
      await sweeper.stop();
      await features.stop();
      await livekit?.close();
      await stores.connection.close();
    },
  };
}
