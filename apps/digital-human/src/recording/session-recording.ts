/**
 * A session's recording (issue 53; the contract's guide, "Recordings"), when the dispatch asks for one
 * (`DigitalHumanJob.recording.audio`). The agents framework's recorder (RecorderIO, started with the
 * AgentSession: conversation-session.ts's joinRoom) writes one stereo Ogg/Opus file at 48 kHz: on the
 * left the participant as the session hears them (their microphone at 16 kHz, through the loudness gate,
 * so silence while the room is quiet), on the right the digital human as far as it was heard. This
 * module does the rest.
 *
 * `start`, before the AgentSession starts (so before the greeting): people must know they are recorded
 * before anything is, so the job's participant carries `dhs.recording` = `audio` first, and only then is
 * the service asked (startSessionRecording); only its 200 makes the job record. Anything else and the
 * attribute is taken back: people are told only the truth.
 *
 * `finish`, once the AgentSession has closed (the recorder's file is then complete): read how long the
 * file plays, upload it where the service says, report `uploaded` or `failed` with the reason, and
 * delete the file, whatever happened (it holds what people said; and the worker's disk is not a store).
 */
import { rm, stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { RecordingFinish, RecordingUploadTarget } from "@dhs/contract";
import { toShownText } from "@dhs/contract/shown-text";
import { LOG } from "../job/log-lines.js";
import { type RetryOptions, type ServiceAccess, ServiceClient } from "../service/service-client.js";
import type { WorkerConfig } from "../worker/worker-config.js";
import { readOggOpusDurationMs } from "./ogg-duration.js";
import { uploadRecording } from "./recording-upload.js";

export const RECORDING_ATTRIBUTE = "dhs.recording";

/** Each call at the end: 3 tries of at most 10 s each (the client's bound), with waits of at most 10 s between them. */
const CALL: RetryOptions = { attempts: 3, baseMs: 500 };
const CALL_MAX_MS = 3 * 10_000 + 2 * 10_000;
/** The start holds up the greeting: shorter tries. */
const START_CALL: RetryOptions = { attempts: 3, baseMs: 250, attemptTimeoutMs: 5_000 };
/** One PUT: a 10-minute session's file (2-7 MB) takes seconds; hours of one take longer. */
const PUT_TIMEOUT_MS = 60_000;
/** The upload as a whole (the target, up to 4 PUTs 1, 3 and 9 s apart, new targets): cut off here. */
const UPLOAD_DEADLINE_MS = 150_000;
/** The longest `finish` takes: the upload's deadline, then the report (200 s). worker.ts waits longer for a job to stop. */
export const RECORDING_FINISH_MAX_MS = UPLOAD_DEADLINE_MS + CALL_MAX_MS;
/**
 * rtc-node waits for LiveKit's answer to new attributes without a bound (and does not say if it failed).
 * An answer that does not come is asked for again before the job gives up recording: pnpm demo's first
 * session on a busy machine once went unrecorded for one attribute LiveKit never answered, though the
 * next session's was answered at once.
 */
const ATTRIBUTE_TIMEOUT_MS = 5_000;
const ATTRIBUTE_ATTEMPTS = 3;
const NO_ANSWER = "LiveKit did not answer";

/** The job's own participant in the room (rtc-node's LocalParticipant). */
export interface RecordingParticipant {
  identity: string;
  setAttributes(attributes: Record<string, string>): Promise<void>;
}

export interface SessionRecordingOptions {
  /** Where the service is; undefined where the worker does not know it (no DHS_API_URL): nothing is recorded. */
  service: ServiceAccess | undefined;
  participant: () => RecordingParticipant | undefined;
  /** The job's directory (JobContext.sessionDirectory), where the recorder writes: removed once done. */
  directory: string;
  logger: { info(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void };
  /** Where LiveKit is, to tell whether the agents framework would upload the audio itself. */
  livekit: Pick<WorkerConfig, "LIVEKIT_URL" | "LIVEKIT_OBSERVABILITY_URL">;
  /** How long one ask for the participant's notice waits for LiveKit (tests shorten it). */
  attributeTimeoutMs?: number;
}

type Delivery = { uploaded: true; durationMs: number; bytes: number; ms: number } | { uploaded: false; reason: string };

export class SessionRecording {
  private readonly api: ServiceClient | undefined;
  /** The job's identity, kept from the start: the service holds the recording to it (the token's `sub` too). */
  private identity = "";
  private started: Promise<boolean> | undefined;
  private finished: Promise<void> | undefined;

  constructor(private readonly options: SessionRecordingOptions) {
    this.api = options.service && new ServiceClient(options.service, () => this.identity);
  }

  /** Whether the AgentSession records; once connected, before it starts. */
  start(): Promise<boolean> {
    this.started ??= this.begin();
    return this.started;
  }

  /** Uploads and reports the file the session wrote (its recorder's `outputPath`), once; after the session closed. */
  finish(file: string | undefined): Promise<void> {
    this.finished ??= this.settle(file);
    return this.finished;
  }

  private async begin(): Promise<boolean> {
    const participant = this.options.participant();
    if (!this.api) return this.notRecording("the worker does not know the service (DHS_API_URL)");
    if (!participant) return this.notRecording("the job is not in the room");
    this.identity = participant.identity;
    const cloud = frameworkUploadsTo(this.options.livekit);
    if (cloud) return this.decline(`the agents framework would send the audio to ${cloud} (LiveKit Cloud's observability)`);
    // Told and asked at once: the recorder starts only once both are done (the AgentSession starts after
    // this), so nothing is recorded before the participant is told, and the two round trips overlap.
    const [untold, answer] = await Promise.all([
      this.tell(participant, "audio"),
      this.api.startRecording({ participant_identity: this.identity }, START_CALL),
    ]);
    if (untold !== undefined) {
      await this.tell(participant, "");
      if (answer.ok) await this.report({ uploaded: false, reason: `the participant could not be told they are recorded: ${untold}` });
      return this.notRecording(`the participant could not be told they are recorded: ${untold}`);
    }
    if (answer.ok) {
      this.options.logger.info({}, LOG.recordingStarted);
      return true;
    }
    // A 409 (another job records the session: the recording is failed `interrupted`; or it is not
    // requested, settled, the session over), or no answer after the client's tries: nothing is recorded.
    // A start that did reach the service though its answer was lost leaves the recording `recording`,
    // and the service fails it `not_delivered` once the session has been over RECORDING_DELIVERY_TIMEOUT_S.
    const cleared = await this.tell(participant, "");
    if (cleared !== undefined) this.options.logger.warn({ reason: cleared }, "could not take back the recording notice");
    return this.notRecording(`the service did not agree: ${answer.error?.code ?? answer.problem}`);
  }

  /** Not recording although the service would have it: started and failed at once, so it is settled now, not when the session ends. */
  private async decline(reason: string): Promise<false> {
    const started = await this.api?.startRecording({ participant_identity: this.identity }, START_CALL);
    if (started?.ok) await this.report({ uploaded: false, reason });
    return this.notRecording(reason);
  }

  private notRecording(reason: string): false {
    this.options.logger.warn({ reason }, LOG.notRecording);
    return false;
  }

  /** Sets (or with "" removes) the participant's notice; undefined once LiveKit took it, else why not. */
  private async tell(participant: RecordingParticipant, value: string): Promise<string | undefined> {
    for (let attempt = 1; ; attempt++) {
      const why = await this.tellOnce(participant, value);
      // A refusal is final; only silence is worth asking again.
      if (why !== NO_ANSWER || attempt === ATTRIBUTE_ATTEMPTS) return why;
      this.options.logger.warn({ attempt }, "LiveKit did not answer the recording notice: asking again");
    }
  }

  private async tellOnce(participant: RecordingParticipant, value: string): Promise<string | undefined> {
    const timeout = new AbortController();
    const waitMs = this.options.attributeTimeoutMs ?? ATTRIBUTE_TIMEOUT_MS;
    try {
      await Promise.race([
        participant.setAttributes({ [RECORDING_ATTRIBUTE]: value }),
        delay(waitMs, undefined, { signal: timeout.signal }).then(() => Promise.reject(new Error(NO_ANSWER))),
      ]);
      return undefined;
    } catch (error) {
      return messageOf(error);
    } finally {
      timeout.abort();
    }
  }

  private async settle(file: string | undefined): Promise<void> {
    try {
      if (!(await this.started)) return;
      const delivery = await this.deliver(file).catch((error: unknown) => ({ uploaded: false as const, reason: messageOf(error) }));
      if (delivery.uploaded)
        this.options.logger.info({ bytes: delivery.bytes, ms: delivery.ms, duration_ms: delivery.durationMs }, LOG.recordingUploaded);
      else this.options.logger.warn({ reason: delivery.reason }, LOG.recordingFailed);
      const reported = await this.report(delivery);
      // Unreported, the service fails the recording `not_delivered` once its delivery timeout has passed.
      if (reported && !reported.ok) this.options.logger.warn({ problem: reported.problem }, "could not report the recording");
    } finally {
      await rm(this.options.directory, { recursive: true, force: true }).catch(() => undefined);
      if (file !== undefined) await rm(file, { force: true }).catch(() => undefined);
    }
  }

  private async deliver(file: string | undefined): Promise<Delivery> {
    const failed = (reason: string): Delivery => ({ uploaded: false, reason });
    if (file === undefined) return failed("the recorder did not start");
    const bytes = await stat(file).then(
      (found) => found.size,
      () => undefined,
    );
    if (!bytes) return failed(bytes === undefined ? "the recorder wrote no file" : "the recorder's file is empty");
    const durationMs = await readOggOpusDurationMs(file);
    if (durationMs === undefined) return failed("the recorder's file is not a whole Ogg/Opus stream: its duration cannot be read");
    const deadline = AbortSignal.timeout(UPLOAD_DEADLINE_MS);
    const target = async (): Promise<RecordingUploadTarget> => {
      const answer = await this.api?.createRecordingUpload({ participant_identity: this.identity }, { ...CALL, signal: deadline });
      if (!answer?.ok) throw new Error(`the service gave no upload target: ${answer?.problem}`);
      return answer.data;
    };
    const first = await target();
    if (bytes > first.max_bytes) return failed(`the file (${bytes} bytes) is larger than the store takes (${first.max_bytes} bytes)`);
    const began = Date.now();
    const result = await uploadRecording(file, first, {
      renew: target,
      timeoutMs: PUT_TIMEOUT_MS,
      signal: deadline,
      // The waits between tries end with the deadline too.
      sleep: (ms) => delay(ms, undefined, { signal: deadline }).catch(() => undefined),
    });
    if (result.ok) return { uploaded: true, durationMs, bytes, ms: Date.now() - began };
    // Reported as it is known. A try whose answer was lost may have landed before the store refused the
    // next one (a 403 after a new target, say): nothing here can tell, so the upload is not claimed.
    const late = deadline.aborted ? `the upload took longer than ${UPLOAD_DEADLINE_MS / 1000} s; ` : "";
    return failed(`${late}the store did not take the file after ${result.attempts} tries: ${result.reason}`);
  }

  private report(delivery: Delivery) {
    const participant_identity = this.identity;
    const body: RecordingFinish = delivery.uploaded
      ? { participant_identity, outcome: "uploaded", duration_ms: delivery.durationMs }
      : { participant_identity, outcome: "failed", reason: oneLine(delivery.reason) };
    return this.api?.finishRecording(body, CALL);
  }
}

/**
 * Where the agents framework would send a recording itself once its session ends (job.js's
 * observabilityUrl): LiveKit Cloud's observability, for a LiveKit Cloud URL or LIVEKIT_OBSERVABILITY_URL.
 * Undefined for a self-hosted LiveKit (ws:// or wss:// of the deployment's own): nothing leaves then.
 */
function frameworkUploadsTo(livekit: SessionRecordingOptions["livekit"]): string | undefined {
  if (livekit.LIVEKIT_OBSERVABILITY_URL) return livekit.LIVEKIT_OBSERVABILITY_URL;
  // Checked a URL at start (worker-config.ts).
  const { hostname } = new URL(livekit.LIVEKIT_URL);
  return /\.livekit\.(cloud|run)$/.test(hostname) ? hostname : undefined;
}

/** The contract's reason: the service's shown-text rule on one line, at most 500 characters. */
function oneLine(text: string): string {
  return toShownText(text.replace(/[\t\n]+/g, " "), 500) || "unknown";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
