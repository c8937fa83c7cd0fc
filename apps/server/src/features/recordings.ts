/**
 * Recordings as a feature: the store the operator chose (an S3-compatible bucket, or a directory the
 * service serves itself at signed links), the service that keeps sessions' recordings, the job's and the
 * API keys' operations on them, their delivery timer, and the retention that deletes old files.
 */
import { hkdfSync } from "node:crypto";
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import type { Config } from "../config.js";
import type { RecordingExpiries, RecordingStorage } from "../domain/recordings/ports.js";
import { MAX_RECORDING_BYTES, RecordingJobs } from "../domain/recordings/recording-jobs.js";
import { RecordingService, type RecordingServiceDeps } from "../domain/recordings/recording-service.js";
import { SessionRecordings } from "../domain/recordings/session-recordings.js";
import { RECORDING_FORMAT } from "../domain/recordings/stored-recording.js";
import { recordingFileRoutes } from "../http/routes/recording-files.js";
import { recordingJobOperations, recordingOperations } from "../http/routes/recordings.js";
import { LocalRecordingStorage } from "../storage/local-recording-storage.js";
import type { S3RecordingStorage, S3RecordingStorageOptions } from "../storage/s3-recording-storage.js";
import { UrlSigner } from "../storage/signed-urls.js";
import { RecordingRetention } from "../workers/recording-retention.js";
import type { Feature } from "./feature.js";

export type RecordingOptions = Pick<
  RecordingServiceDeps,
  "sessions" | "transcripts" | "durations" | "eventRetainMs" | "onEventsQueued" | "now"
> & {
  expiries: RecordingExpiries;
  /** LiveKit's secret, which every replica holds: the local store's signing key is derived from it. */
  secret: string;
  logger: Logger;
  /** The process's metrics registry, where the feature's own are counted. */
  registry: Registry;
};

export interface Recordings {
  service: RecordingService;
  retention: RecordingRetention;
  /** The port the server listens on, for the local store's links when RECORDING_PUBLIC_URL is unset. */
  listeningOn(port: number): void;
  feature: ReturnType<typeof recordingsFeature>;
}

export function recordingsOf(config: Config["recordings"], port: number, options: RecordingOptions): Recordings {
  let listening = port;
  const publicUrl = () => config.publicUrl ?? `http://127.0.0.1:${listening}`;
  let storage: RecordingStorage;
  let local: LocalRecordingStorage | undefined;
  let close = () => {};
  if (config.s3) {
    const s3 = lazyS3(config.s3);
    storage = s3.storage;
    close = s3.close;
  } else {
    // A key of its own for the links: a link never verifies as a cursor, nor a cursor as a link.
    const key = Buffer.from(hkdfSync("sha256", options.secret, "", "dhs recording links v1", 32));
    // The links' expiries by the recordings' clock, the one their records and retention keep.
    const now = options.now;
    local = new LocalRecordingStorage({
      dir: config.dir,
      publicUrl,
      signer: new UrlSigner(key),
      ...(now ? { now: () => now().getTime() } : {}),
    });
    storage = local;
  }
  const settled = new Counter({
    name: "dhs_recordings_settled_total",
    help: "Sessions' recordings settled, by outcome: ready, or the code they failed with (not_joined, not_started, interrupted, upload_failed, not_delivered).",
    labelNames: ["outcome"] as const,
    registers: [options.registry],
  });
  const service = new RecordingService({
    sessions: options.sessions,
    transcripts: options.transcripts,
    storage,
    expiries: options.expiries,
    durations: options.durations,
    eventRetainMs: options.eventRetainMs,
    urlTtlS: config.urlTtlS,
    retentionMs: config.retentionMs,
    deliveryTimeoutMs: config.deliveryTimeoutMs,
    ...(options.onEventsQueued ? { onEventsQueued: options.onEventsQueued } : {}),
    onSettled: (outcome) => settled.inc({ outcome }),
    ...(options.now ? { now: options.now } : {}),
  });
  const routes =
    local &&
    recordingFileRoutes(local, {
      maxBytes: MAX_RECORDING_BYTES,
      contentType: RECORDING_FORMAT,
      allows: (key, method) => service.fileAllowed(key, method),
    });
  const { logger } = options;
  const retention = new RecordingRetention(options.expiries, storage, {
    intervalMs: 60_000,
    now: () => service.now().getTime(),
    onDeleted: (count) => logger.info({ count }, "recordings past their retention deleted"),
    onError: (err) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, "recording retention failed"),
  });
  return {
    service,
    retention,
    listeningOn: (bound) => {
      listening = bound;
    },
    feature: recordingsFeature(service, routes, retention, close),
  };
}

function recordingsFeature(service: RecordingService, routes: Feature["routes"], retention: RecordingRetention, close: () => void) {
  return {
    name: "recordings",
    operations: recordingOperations(new SessionRecordings(service)),
    digitalHumanOperations: recordingJobOperations(new RecordingJobs(service)),
    timers: { recording: (accountId: string, sessionId: string) => service.onTimer(accountId, sessionId) },
    routes,
    background: [retention],
    close,
  } satisfies Feature;
}

/**
 * The S3 store, its SDK loaded on first use: most deployments and every test without a bucket never pay
 * for loading the AWS SDK (hundreds of modules) at start.
 */
function lazyS3(options: S3RecordingStorageOptions): { storage: RecordingStorage; close: () => void } {
  let made: Promise<S3RecordingStorage> | undefined;
  const s3 = () => {
    made ??= import("../storage/s3-recording-storage.js").then(({ S3RecordingStorage }) => new S3RecordingStorage(options));
    return made;
  };
  return {
    storage: {
      uploadTarget: async (key, target) => (await s3()).uploadTarget(key, target),
      downloadLink: async (key, link) => (await s3()).downloadLink(key, link),
      stat: async (key) => (await s3()).stat(key),
      delete: async (key) => (await s3()).delete(key),
    },
    close: () => void made?.then((storage) => storage.close()),
  };
}
