/**
 * The digital human's job, run by the agent worker in a process of its own for each room it is
 * dispatched to (job/session-job.ts says what a session's job does, in order).
 *
 * The ears (Silero VAD) and the speech recognizer's model load while the process waits for a job; the
 * voice is the worker's (speaking/voice-server.ts), shared by its jobs.
 */
import { agentCatalog } from "@dhs/catalog";
import { defineAgent, type JobContext, type JobProcess } from "@livekit/agents";
import { PocketSphinxTranscriber } from "./hearing/pocketsphinx-transcriber.js";
import { loadVad } from "./hearing/vad.js";
import { type Loaded, SessionJob } from "./job/session-job.js";
import { RemoteVoice } from "./speaking/remote-voice.js";
import { workerConfig } from "./worker/worker-config.js";

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    // The worker's shared voice when it runs one; a job process run alone loads its own.
    const voiceUrl = workerConfig().DHS_VOICE_URL;
    const ownVoice = async () => (await import("./speaking/espeak-voice.js")).ESpeakVoice.load();
    const [voice, vad] = await Promise.all([voiceUrl ? new RemoteVoice(voiceUrl) : ownVoice(), loadVad()]);
    // One word through the voice while waiting for a job: the first request of a process (its HTTP client,
    // its connection) is not paid for by a participant's greeting.
    await voice.synthesize("Hello.").catch(() => undefined);
    // A provider hears instead (DHS_STT_PROVIDER): no decoder, and its 100 MB, in this process.
    const found = workerConfig().DHS_STT_PROVIDER === "pocketsphinx" ? PocketSphinxTranscriber.find() : undefined;
    const transcriber = found && "transcriber" in found ? found.transcriber : undefined;
    // Its model loads (a second of a core, 100 MB) while the process waits, not in the session's first turn.
    transcriber?.warm();
    // The catalog's voices as this process starts: a job never reads an operator's file half-written.
    const { voices } = agentCatalog(workerConfig().DIGITAL_HUMANS_FILE);
    proc.userData.loaded = { voice, vad, transcriber, voices } satisfies Loaded;
  },

  entry: (ctx: JobContext) => new SessionJob(ctx, ctx.proc.userData.loaded as Loaded).run(),
});
