/**
 * The service: read the configuration (one clear line and exit 1 when it is wrong), serve, and on
 * SIGTERM or SIGINT stop accepting, finish in-flight requests, close Redis, flush the traces and exit 0;
 * on an error nobody handled, the same stop, then exit 1 (process-faults.ts).
 * main.ts starts it, after tracing when tracing is on.
 */
import { pino } from "pino";
import { compose } from "./compose.js";
import { NO_KEYS, watchOperatorFiles } from "./config/operator-files.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { metricsListener } from "./http/metrics-server.js";
import { REDACT_PATHS } from "./http/request-logger.js";
import { type RunningServer, startWebServer } from "./http/server.js";
import { exitOnUncaughtErrors } from "./process-faults.js";
import type { Tracing } from "./tracing/tracing.js";

export interface ServeOptions {
  /** OpenTelemetry's spans, when tracing is on. */
  tracing?: Tracing;
  /** Flushes the spans not yet exported; called once the server has stopped. */
  flushTraces?: () => Promise<void>;
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(1);
  }
}

export async function serve(options: ServeOptions = {}): Promise<void> {
  const config = configOrExit();
  // Logs go out asynchronously (buffered by pino's sonic-boom), so a slow log pipe never stalls requests;
  // they are flushed before the process exits.
  const logDestination = pino.destination({ dest: 1, sync: false });
  const { tracing } = options;
  const logger = pino(
    {
      level: config.logLevel,
      base: { service: "dhs-server" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      // With tracing on, every line written within a trace names it: a request's, an error's.
      ...(tracing ? { mixin: () => tracing.logFields() } : {}),
    },
    logDestination,
  );
  function exit(code: number): never {
    logDestination.flushSync();
    process.exit(code);
  }
  const composed = compose(config, logger, tracing ? { tracing } : {});
  // A revoked key stops working within seconds, on every replica, without a restart. Watched from here on,
  // so a SIGHUP sent as soon as the process runs reloads rather than kills it.
  watchOperatorFiles([config.apiKeys.file, config.digitalHumans.file], () => composed.reloadOperatorFiles());

  // Handlers go in before the server listens: a SIGTERM that arrives just after "listening" must drain,
  // not kill the process with the default action.
  let running: RunningServer | undefined;
  let metricsServer: RunningServer | undefined;
  let stopped: Promise<void> | undefined;
  /** Stops accepting, finishes what is in flight within the grace, closes the stores, flushes the traces. */
  function stopInOrder(): Promise<void> {
    stopped ??= Promise.all([running?.stop(config.shutdownGraceMs), metricsServer?.stop(1000)])
      .then(() => composed.close())
      .then(() => options.flushTraces?.());
    return stopped;
  }
  function shutdown(signal: NodeJS.Signals): void {
    if (stopped) return;
    logger.info({ signal }, "shutting down");
    stopInOrder().then(
      () => {
        logger.info("stopped");
        exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        exit(1);
      },
    );
  }
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  exitOnUncaughtErrors(process, {
    log: (err, origin) => logger.fatal({ err, origin }, "an error nobody handled: stopping in order, then exiting 1 to be restarted"),
    count: (origin) => composed.metrics.uncaughtError(origin),
    stop: stopInOrder,
    exit,
    graceMs: config.shutdownGraceMs + 5_000,
  });

  // In production, wrong LiveKit credentials stop the start with one line: every create would fail. LiveKit
  // merely unreachable does not; the replica starts unready and becomes ready once LiveKit answers.
  if (config.production) {
    const livekit = await composed.verifyLiveKit();
    if (livekit === "refused") {
      process.stderr.write(
        "configuration error: LiveKit refused LIVEKIT_API_KEY and LIVEKIT_API_SECRET (401 or 403 from LIVEKIT_API_URL)\n",
      );
      await composed.close();
      exit(1);
    }
    if (livekit === "unreachable")
      logger.warn({ livekit: config.livekit.apiUrl }, "LiveKit not reachable yet; serving, /readyz answers 503 until it is");
  }

  // Take traffic once Redis (and the history database, when there is one) answers; if not within a few
  // seconds, serve anyway (readiness says 503 and requests that need Redis answer 503) and recover when it
  // comes. Redis holding another key layout, or the database another schema, stops the process with one
  // line, at start or once it answers.
  async function layoutRefused(error: unknown): Promise<never> {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    await composed.close();
    exit(1);
  }
  if (!(await composed.waitForStore(5000).catch(layoutRefused))) {
    logger.warn("session store not reachable yet; serving, /readyz answers 503 until it is");
    composed.waitForStore(Number.POSITIVE_INFINITY, 1000).catch(layoutRefused);
  }
  const limits = { ...config.connections, onDrop: composed.metrics.connectionDropped };
  running = await startWebServer(composed.handler, config.port, config.host, limits);
  composed.recordings.listeningOn(running.port);
  metricsServer = await startWebServer(metricsListener(composed.metrics), config.metricsPort, config.host, limits);
  composed.start();
  logger.info(
    {
      url: running.url,
      port: running.port,
      metrics_url: `${metricsServer.url}/metrics`,
      node_env: config.nodeEnv,
      store: config.redisUrl ? (config.redisMode === "cluster" ? "redis-cluster" : "redis") : "memory",
      history: config.database.url ? "postgres" : "none",
      recordings: config.recordings.s3 ? `s3://${config.recordings.s3.bucket}` : config.recordings.dir,
      livekit: config.livekit.url,
      api_keys: config.apiKeys.records.length,
    },
    "listening",
  );
  if (config.apiKeys.records.length === 0) logger.error({ file: config.apiKeys.file }, NO_KEYS);
  if (!config.production && !config.redisUrl) logger.warn("REDIS_URL is unset: sessions live in this process's memory (development only)");
  if (config.production && !config.recordings.s3) {
    // Every replica keeps its own directory: a recording uploaded to one is unknown to the others.
    logger.warn({ dir: config.recordings.dir }, "recordings are kept in a local directory: run one replica, or set RECORDING_S3_BUCKET");
  }
}
