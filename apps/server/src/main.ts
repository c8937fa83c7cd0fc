/**
 * Process entry: read the configuration (one clear line and exit 1 when it is wrong), serve, and on
 * SIGTERM or SIGINT stop accepting, finish in-flight requests and exit 0.
 */
import { pino } from "pino";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { createApp } from "./http/app.js";
import { type RunningServer, startWebServer } from "./http/server.js";

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(1);
  }
}

const config = configOrExit();
const logger = pino({ level: config.logLevel, base: { service: "dhs-server" } });

const app = createApp({
  logError: (err, requestId) => logger.error({ err, request_id: requestId }, "request failed"),
});

// Handlers go in before the server listens: a SIGTERM that arrives just after "listening" must drain,
// not kill the process with the default action.
let running: RunningServer | undefined;
let stopping = false;
function shutdown(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  (running?.stop(config.shutdownGraceMs) ?? Promise.resolve()).then(
    () => {
      logger.info("stopped");
      process.exit(0);
    },
    (err: unknown) => {
      logger.error({ err }, "shutdown failed");
      process.exit(1);
    },
  );
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

running = await startWebServer(app, config.port, config.host);
logger.info({ url: running.url, port: running.port, node_env: config.nodeEnv }, "listening");
