/**
 * The agent worker: registers with LiveKit once for each agent name in the digital human catalog
 * (DIGITAL_HUMANS_FILE, the deployment's default catalog of @dhs/catalog otherwise), so a session's explicit dispatch to
 * that name reaches it. LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET default to
 * `livekit-server --dev`'s, like the service's. DHS_API_URL, the service's address, is where its jobs
 * post each session's transcript and take what its backend queued (say, notes); without it they only
 * caption. OPENAI_BASE_URL and OPENAI_API_KEY name the digital humans' LLM (llm-settings.ts); without
 * them they greet and acknowledge. Every variable is declared and checked in worker/worker-config.ts.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { agentCatalog } from "@dhs/catalog";
import { ConfigError } from "@dhs/settings";
import { AgentServer, initializeLogger, type JobRequest, log, ServerOptions } from "@livekit/agents";
import { missingFrameworkInternals, WRITTEN_AGAINST } from "./conversation/framework-internals.js";
import { llmSettings } from "./conversation/llm-settings.js";
import { PocketSphinxTranscriber } from "./hearing/pocketsphinx-transcriber.js";
import { parseJobMetadata } from "./job/job-metadata.js";
import { LOG, STEP } from "./job/log-lines.js";
import { hearingMismatch, unspokenVoices } from "./providers/speech-providers.js";
import { RECORDING_FINISH_MAX_MS } from "./recording/session-recording.js";
import { FliteVoice } from "./speaking/flite-voice.js";
import { speaks } from "./speaking/voice-library.js";
import { Admission } from "./worker/admission.js";
import { HostCpu } from "./worker/host-cpu.js";
import { type WorkerConfig, workerConfig } from "./worker/worker-config.js";
import { WorkerMetrics } from "./worker/worker-metrics.js";

// Written, never read, past the settings: the job processes and the voice server inherit it.
const env = process.env;
let config: WorkerConfig;
try {
  config = workerConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`configuration error: ${error.message}\n`);
  process.exit(1);
}
// Set here, so the job processes, which inherit the environment, sign their service tokens alike.
const { LIVEKIT_API_KEY: apiKey, LIVEKIT_API_SECRET: apiSecret } = config;
env.LIVEKIT_API_KEY = apiKey;
env.LIVEKIT_API_SECRET = apiSecret;
// The agent names to register and the voices to speak, of the catalog the service reads too.
const { agentNames, voices, hearingLanguages } = agentCatalog(config.DIGITAL_HUMANS_FILE);
// A catalog that takes digital humans in languages this worker's speech-to-text does not hear is refused
// here, as a bad variable is: the worker would mishear every one of their sessions.
const mismatch = hearingMismatch(config, hearingLanguages);
if (mismatch !== undefined) {
  process.stderr.write(`configuration error: ${mismatch}\n`);
  process.exit(1);
}
const basePort = config.AGENT_HTTP_PORT;
// pnpm demo, which shares the machine with whatever else runs on it, keeps the health endpoint on loopback.
const httpHost = config.AGENT_HTTP_HOST;
const maxJobs = config.AGENT_MAX_JOBS;
// A job process loads the agents framework, its listening model and the face (about two seconds of CPU)
// before it can take a job; warm ones waiting take the next sessions at once.
const idleProcesses = config.AGENT_IDLE_PROCESSES;
const loadThreshold = config.AGENT_LOAD_THRESHOLD;
// Loading takes about 2 s on an idle core and several times that while running sessions hold the CPUs;
// at most one accepted job waits for it (admission.ts), so the bound is generous rather than tight.
const initializeTimeoutMs = config.AGENT_INITIALIZE_TIMEOUT_S * 1000;
// How long the worker waits for a job process it tells to stop (LiveKit terminated the job, or the worker
// is shutting down) before it kills it; the framework's default is 60 s. A recorded session's job uploads
// its file as it stops: at most 200 s (RECORDING_FINISH_MAX_MS: a 150 s deadline over asking for the
// target and up to 4 PUTs of at most 60 s each, 1 + 3 + 9 s apart, then at most 50 s to report it), though
// a 10-minute session's 2-7 MB usually takes seconds; 40 s more for the rest of its stop. A job whose room
// went away stops on its own, and the framework waits for its shutdown callbacks without a bound.
const shutdownProcessTimeoutMs = RECORDING_FINISH_MAX_MS + 40_000;
const metricsPort = config.AGENT_METRICS_PORT;
const hostCpu = new HostCpu().start(1000);

initializeLogger({ pretty: false, level: config.LOG_LEVEL });

// An upgrade of the agents framework that took away what the sessions rely on stops the worker here,
// rather than every session's captions or recording later.
const missing = missingFrameworkInternals();
if (missing.length > 0) {
  log().error(
    { missing, written_against: WRITTEN_AGAINST },
    "the agents framework lacks what this worker relies on: the worker does not start",
  );
  process.exit(1);
}

// A wrong LLM setting has stopped the worker above, once, rather than every session's reply.
const llm = llmSettings(config);

// One voice server for every job (voice-server.ts); job processes inherit its address through the environment.
const voiceServer = fork(fileURLToPath(new URL("./speaking/voice-server.js", import.meta.url)), {
  stdio: "inherit",
  env: { ...env, DHS_DEFAULT_VOICE: voices[0]?.id ?? "slt" },
});
env.DHS_VOICE_URL = await new Promise<string>((resolve, reject) => {
  voiceServer.once("message", (message: { voiceUrl?: string }) =>
    message.voiceUrl ? resolve(message.voiceUrl) : reject(new Error("no voice")),
  );
  voiceServer.once("exit", (code) => reject(new Error(`the voice server exited (${code}) before it was ready`)));
});

// Its job processes report what they count here (worker-report.ts), inheriting the address.
const metrics = new WorkerMetrics(() => servers.reduce((n, server) => n + server.activeJobs.length, 0));
const reports = await metrics.receiveReports();
env.DHS_WORKER_REPORT_URL = reports.url;

const servers = agentNames.map((agentName, i) => {
  const admission = new Admission({ maxJobs, threshold: loadThreshold, startTimeoutMs: initializeTimeoutMs }, () => hostCpu.load);
  const running = (server: AgentServer) => server.activeJobs.map((info) => info.job.id);
  const observing = setInterval(() => admission.observe(running(server)), 250);
  observing.unref();
  const server: AgentServer = new AgentServer(
    new ServerOptions({
      agent: fileURLToPath(new URL("./agent.js", import.meta.url)),
      agentName,
      wsURL: config.LIVEKIT_URL,
      apiKey,
      apiSecret,
      // Each worker serves its own health endpoint.
      host: httpHost,
      port: basePort + i,
      numIdleProcesses: idleProcesses,
      initializeProcessTimeout: initializeTimeoutMs,
      shutdownProcessTimeout: shutdownProcessTimeoutMs,
      // The worker marks itself full where LiveKit stops sending jobs, and LiveKit prefers the least loaded.
      loadFunc: async (self: AgentServer) => admission.load(running(self)),
      loadThreshold,
      requestFunc: async (request: JobRequest) => {
        const { sessionId } = parseJobMetadata(request.job.metadata, agentName);
        const decision = admission.decide(request.job.id, running(server));
        const logger = log().child({ session_id: sessionId, job_id: request.job.id });
        if (!decision.accept) {
          logger.info({ reason: decision.reason, running: server.activeJobs.length, cpu: hostCpu.load }, LOG.refusingJob);
          return request.reject();
        }
        logger.info({ step: STEP.jobRequest }, LOG.timeline);
        await request.accept();
      },
      production: config.NODE_ENV === "production",
    }),
  );
  return server;
});

const metricsServer = await metrics.serve(metricsPort, httpHost);
process.stdout.write(
  `${JSON.stringify({ msg: "digital human worker starting", agent_names: agentNames, metrics_port: metricsServer.port })}\n`,
);
// Said once here, not by every job: without a transcriber the jobs caption only the digital human's lines.
const transcriber = config.DHS_STT_PROVIDER === "pocketsphinx" ? PocketSphinxTranscriber.find() : undefined;
if (transcriber && "missing" in transcriber)
  log().warn(
    { reason: transcriber.missing },
    "settings" in llm
      ? "no speech recognition: the participant's words are not transcribed, and each turn is answered as one nothing was heard in (none is sent to the LLM)"
      : "no speech recognition: the participant's words are not transcribed",
  );
if ("settings" in llm) log().info({ base_url: llm.settings.baseUrl, default_model: llm.settings.defaultModel }, "the digital humans' LLM");
else log().warn({ reason: llm.missing }, "no LLM: the digital humans greet, acknowledge each turn and take their leave");
if (!config.DHS_API_URL)
  log().warn(
    "DHS_API_URL is not set: transcripts are captioned in the room but not sent to the service, and backends cannot drive sessions",
  );
// Said once here, not by every job: a voice the catalog offers that this worker cannot speak falls back.
const fliteInstalled = "voice" in FliteVoice.find();
const unspoken = [
  ...voices.flatMap((voice) => {
    const can = voice.provider === "flite" ? speaks(voice, fliteInstalled) : { yes: true as const };
    return can.yes ? [] : [`${voice.id} (${can.why})`];
  }),
  ...unspokenVoices(voices, config).map((voice) => `${voice.id} (${voice.why})`),
];
if (unspoken.length > 0)
  log().warn(
    { voices: unspoken },
    "voices spoken by an offline voice of their language instead (the voices of the catalog this worker cannot speak)",
  );
log().info({ stt: config.DHS_STT_PROVIDER, hearing_languages: hearingLanguages }, "the digital humans' ears");
const stop = async () => {
  await Promise.allSettled(servers.map((server) => server.close()));
  hostCpu.stop();
  metricsServer.server.close();
  reports.server.close();
  voiceServer.kill("SIGTERM");
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
await Promise.all(servers.map((server) => server.run()));
