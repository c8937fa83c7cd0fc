/**
 * The digital human's job, run by the agent worker in a process of its own for each room it is
 * dispatched to: publish a face and a voice, greet the session's participant by name, acknowledge them
 * when they finish speaking, and take its leave when they go or the session's time runs out.
 *
 * The face (FaceRenderer), the voice (Voice) and the ears (Listener) are each behind an interface; this
 * file only wires them to the room. The ears load while the process waits for a job; the voice is the
 * worker's (voice-server.ts), shared by its jobs.
 */
import { defineAgent, type JobContext, type JobProcess, log } from "@livekit/agents";
import {
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  LocalVideoTrack,
  ParticipantKind,
  type RemoteParticipant,
  type RemoteTrack,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  VideoBufferType,
  VideoFrame,
  VideoSource,
} from "@livekit/rtc-node";
import { CanvasFace } from "./canvas-face.js";
import { parseJobMetadata } from "./job.js";
import { acknowledgement, FAREWELL_LEAD_S, farewellAtTimeLimit, farewellOnLeaving, greeting } from "./lines.js";
import type { Listener } from "./listener.js";
import { RemoteVoice } from "./remote-voice.js";
import { SileroListener } from "./silero-listener.js";
import { SAMPLE_RATE, Speaker } from "./speaker.js";
import type { Voice } from "./voice.js";

const FPS = 15;
/** The AudioSource's queue: short, so what is sent is heard (and seen on the mouth) at once. */
const AUDIO_QUEUE_MS = 100;

interface Loaded {
  voice: Voice;
  listener: Listener;
}

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    // The worker's shared voice when it runs one; a job process run alone loads its own.
    const voiceUrl = process.env.DHS_VOICE_URL;
    const ownVoice = async () => (await import("./espeak-voice.js")).ESpeakVoice.load();
    const [voice, listener] = await Promise.all([voiceUrl ? new RemoteVoice(voiceUrl) : ownVoice(), SileroListener.load()]);
    proc.userData.loaded = { voice, listener } satisfies Loaded;
  },

  entry: async (ctx: JobContext) => {
    const { voice, listener } = ctx.proc.userData.loaded as Loaded;
    const job = parseJobMetadata(ctx.job.metadata, ctx.job.agentName);
    const logger = log().child({ session_id: job.sessionId, digital_human: job.digitalHuman.name });
    await ctx.connect();
    const participant = ctx.room.localParticipant;
    if (!participant) throw new Error("connected without a local participant");

    const face = new CanvasFace(job.digitalHuman.name, job.digitalHuman.id);
    const videoSource = new VideoSource(face.width, face.height);
    const audioSource = new AudioSource(SAMPLE_RATE, 1, AUDIO_QUEUE_MS);
    // The line as it starts to be heard: tests match it against the audio the browser receives.
    const speaker = new Speaker(audioSource, AUDIO_QUEUE_MS / 20, (text) => logger.info({ text }, "saying"));
    await participant.publishTrack(
      LocalVideoTrack.createVideoTrack("digital-human-face", videoSource),
      // One small layer: a 320x240 face gains nothing from simulcast's extra encodes.
      new TrackPublishOptions({
        source: TrackSource.SOURCE_CAMERA,
        simulcast: false,
        videoEncoding: { maxBitrate: 400_000n, maxFramerate: FPS },
      }),
    );
    await participant.publishTrack(
      LocalAudioTrack.createAudioTrack("digital-human-voice", audioSource),
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );

    const started = performance.now();
    let tick = 0;
    const video = setInterval(() => {
      const mouth = speaker.mouthOpen();
      // Silent, only the blinks and the sway move: half the frames suffice, and each one costs an encode.
      if (tick++ % 2 === 1 && mouth === 0 && !speaker.speaking) return;
      const data = face.render(performance.now() - started, mouth);
      videoSource.captureFrame(new VideoFrame(data, face.width, face.height, VideoBufferType.RGBA));
    }, 1000 / FPS);
    const speaking = speaker.run();

    const say = async (text: string) => {
      try {
        await speaker.say(await voice.synthesize(text), text);
      } catch (error) {
        logger.warn({ error: String(error) }, "could not speak");
      }
    };

    // The session's participant; with no metadata (a hand-made dispatch), whoever joins who is not an agent.
    const isTheParticipant = (p: RemoteParticipant) =>
      p.kind !== ParticipantKind.AGENT && (job.participantIdentity === undefined || p.identity === job.participantIdentity);
    let greeted = false;
    let lastAcknowledgement: string | undefined;
    let timeLimit: NodeJS.Timeout | undefined;
    const stopListening: (() => void)[] = [];

    const welcome = (p: RemoteParticipant) => {
      if (!isTheParticipant(p) || greeted) return;
      greeted = true;
      void say(greeting(p.identity, job.digitalHuman.name));
      // The session becomes active as they join; its maximum duration runs from about now.
      if (job.maxDurationS !== undefined && job.maxDurationS > 2 * FAREWELL_LEAD_S) {
        timeLimit = setTimeout(() => void say(farewellAtTimeLimit(p.identity)), (job.maxDurationS - FAREWELL_LEAD_S) * 1000);
      }
    };
    for (const p of ctx.room.remoteParticipants.values()) welcome(p);
    ctx.room.on(RoomEvent.ParticipantConnected, welcome);
    ctx.room.on(RoomEvent.ParticipantDisconnected, (p: RemoteParticipant) => {
      if (!isTheParticipant(p)) return;
      speaker.interrupt();
      void say(farewellOnLeaving(p.identity));
    });
    ctx.room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack, _publication, p: RemoteParticipant) => {
      if (track.kind !== TrackKind.KIND_AUDIO || !isTheParticipant(p)) return;
      const audio = new AudioStream(track, { sampleRate: 16_000, numChannels: 1 });
      stopListening.push(
        listener.listen(audio, {
          speechStarted: () => logger.debug("participant started speaking"),
          speechEnded: (durationS) => {
            logger.info({ duration_s: durationS }, "participant stopped speaking");
            if (speaker.speaking) return;
            lastAcknowledgement = acknowledgement(lastAcknowledgement);
            void say(lastAcknowledgement);
          },
        }),
      );
    });

    const stop = async () => {
      clearInterval(video);
      clearTimeout(timeLimit);
      for (const stopOne of stopListening) stopOne();
      speaker.stop();
      await speaking.catch(() => undefined);
    };
    ctx.addShutdownCallback(stop);
    await new Promise<void>((resolve) => ctx.room.once(RoomEvent.Disconnected, () => resolve()));
    await stop();
  },
});
