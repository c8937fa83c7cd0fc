/**
 * The digital human's job, run by the agent worker in a process of its own for each room it is
 * dispatched to: publish a face and a voice, greet the session's participant by name, acknowledge them
 * when they finish speaking, and take its leave when they go or the session's time runs out.
 *
 * The face (FaceRenderer), the voice (Voice), the ears (Listener) and the speech recognition
 * (Transcriber) are each behind an interface; this file only wires them to the room. The ears load while
 * the process waits for a job; the voice is the worker's (voice-server.ts), shared by its jobs. What
 * either side says is published as a live caption (captions.ts): its own lines verbatim as they start to
 * be heard, the participant's turns as the transcriber heard them; and, where the service's address is
 * known (DHS_API_URL), posted to the session's transcript (transcript-poster.ts) as well.
 */
import { defineAgent, type JobContext, type JobProcess, log } from "@livekit/agents";
import {
  AudioSource,
  AudioStream,
  DisconnectReason,
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
import { publishCaption } from "./captions.js";
import { parseJobMetadata } from "./job.js";
import { acknowledgement, FAREWELL_LEAD_S, farewellAtTimeLimit, farewellOnLeaving, greeting, sentences } from "./lines.js";
import type { Listener } from "./listener.js";
import { PocketSphinxTranscriber } from "./pocketsphinx-transcriber.js";
import { RemoteVoice } from "./remote-voice.js";
import { SileroListener } from "./silero-listener.js";
import { SAMPLE_RATE, Speaker } from "./speaker.js";
import type { Transcriber } from "./transcriber.js";
import { TranscriptPoster } from "./transcript-poster.js";
import type { Speech, Voice } from "./voice.js";

const FPS = 15;
/** The AudioSource's queue: short, so what is sent is heard (and seen on the mouth) at once. */
const AUDIO_QUEUE_MS = 100;
/** How long the greeting waits, after the participant joined, for someone to subscribe to the voice. */
const GREETING_WAIT_MS = 1500;

/** A line to say, sentence by sentence, each with its speech as it is synthesized. */
type Line = { text: string; speech: Promise<Speech | undefined> }[];

interface Loaded {
  voice: Voice;
  listener: Listener;
  /** Undefined where none is installed: the job captions only its own lines (worker.ts said so once). */
  transcriber: Transcriber | undefined;
}

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    // The worker's shared voice when it runs one; a job process run alone loads its own.
    const voiceUrl = process.env.DHS_VOICE_URL;
    const ownVoice = async () => (await import("./espeak-voice.js")).ESpeakVoice.load();
    const [voice, listener] = await Promise.all([voiceUrl ? new RemoteVoice(voiceUrl) : ownVoice(), SileroListener.load()]);
    // One word through the voice while waiting for a job: the first request of a process (its HTTP client,
    // its connection) is not paid for by a participant's greeting.
    await voice.synthesize("Hello.").catch(() => undefined);
    const found = PocketSphinxTranscriber.find();
    const transcriber = "transcriber" in found ? found.transcriber : undefined;
    proc.userData.loaded = { voice, listener, transcriber } satisfies Loaded;
  },

  entry: async (ctx: JobContext) => {
    const { voice, listener, transcriber } = ctx.proc.userData.loaded as Loaded;
    const job = parseJobMetadata(ctx.job.metadata, ctx.job.agentName);
    const logger = log().child({ session_id: job.sessionId, digital_human: job.digitalHuman.name });
    // Each step of a session's start, for the end-to-end tier's timeline (README, "The digital human").
    const timeline = (step: string) => logger.info({ step }, "timeline");
    timeline("job started");
    const { persona } = job;
    // The conversation that follows them is the next step of this reference; until then it says so.
    logger.info(
      { voice: persona.voice, language: persona.language, instructions_chars: persona.instructions?.length ?? 0, model: persona.llm.model },
      "persona received",
    );
    // Connecting first: LiveKit's signalling and the peer connection proceed (in rtc-node's own threads)
    // while this process builds the face and asks for the greeting.
    const connected = ctx.connect().then(() => timeline("connected"));
    const sayFailed = (error: unknown) => logger.warn({ error: String(error) }, "could not speak");
    const synthesize = async (text: string): Promise<Speech | undefined> => {
      try {
        return await voice.synthesize(text, persona.voice);
      } catch (error) {
        sayFailed(error);
        return undefined;
      }
    };
    // A line as its sentences, each synthesized after the one before: the first is spoken while the
    // rest are made, so a long line starts as soon as a short one would.
    let previousSynthesis: Promise<unknown> = Promise.resolve();
    const prepare = (text: string): Line =>
      sentences(text).map((sentence) => {
        const speech = previousSynthesis.then(() => synthesize(sentence));
        previousSynthesis = speech;
        return { text: sentence, speech };
      });

    // The greeting's words are known from the job's metadata before anyone joins: synthesized (by the
    // worker's voice process) while the job connects, it is ready the moment the participant can hear it.
    // A greeting of null: nothing is said until the participant speaks.
    const greetingOf = (identity: string) =>
      persona.greeting === null ? undefined : greeting(persona.greeting, identity, job.digitalHuman.name);
    const greetingText = job.participantIdentity === undefined ? undefined : greetingOf(job.participantIdentity);
    const greetingLine = greetingText === undefined ? undefined : prepare(greetingText);
    void greetingLine?.[0]?.speech.then(() => timeline("greeting's first sentence synthesized"));

    const face = new CanvasFace(job.digitalHuman.name, job.digitalHuman.id);
    const videoSource = new VideoSource(face.width, face.height);
    const audioSource = new AudioSource(SAMPLE_RATE, 1, AUDIO_QUEUE_MS);
    const voiceTrack = LocalAudioTrack.createAudioTrack("digital-human-voice", audioSource);
    // Captions go out once connected; one that cannot be sent costs the caption, never the session.
    const caption = (speakerIdentity: string, trackSid: string | undefined, text: string) => {
      const local = ctx.room.localParticipant;
      if (!local || !ctx.room.isConnected) return;
      publishCaption(local, { speaker: speakerIdentity, trackSid, text }).catch((error: unknown) =>
        logger.warn({ error: String(error) }, "could not publish a caption"),
      );
    };
    // The line as it starts to be heard: tests match it against the audio the browser receives, and the
    // page shows it as the digital human's caption.
    // The service's copy of what was said; none where the worker does not know the service (worker.ts).
    const serviceUrl = process.env.DHS_API_URL;
    const transcript =
      serviceUrl === undefined || serviceUrl === "" || job.sessionId === undefined
        ? undefined
        : new TranscriptPoster({
            serviceUrl: serviceUrl.replace(/\/+$/, ""),
            sessionId: job.sessionId,
            roomName: ctx.job.room?.name ?? `dhs-${job.sessionId}`,
            idPrefix: ctx.job.id,
            apiKey: process.env.LIVEKIT_API_KEY ?? "",
            apiSecret: process.env.LIVEKIT_API_SECRET ?? "",
            onError: (message) => logger.warn(message),
          });
    const speaker = new Speaker(audioSource, AUDIO_QUEUE_MS / 20, (text, durationS) => {
      logger.info({ text }, "saying");
      caption(ctx.room.localParticipant?.identity ?? "", voiceTrack.sid, text);
      const startedAt = new Date();
      transcript?.add({ speaker: "digital_human", text, startedAt, endedAt: new Date(startedAt.getTime() + durationS * 1000) });
    });
    const started = performance.now();
    const drawFrame = (mouth: number) =>
      videoSource.captureFrame(
        new VideoFrame(face.render(performance.now() - started, mouth), face.width, face.height, VideoBufferType.RGBA),
      );

    await connected;

    const participant = ctx.room.localParticipant;
    if (!participant) throw new Error("connected without a local participant");

    // Both tracks at once, each a round trip to LiveKit, and a frame in the video source before anyone
    // subscribes: a subscriber's first frame is the next one encoded.
    drawFrame(0);
    await Promise.all([
      participant.publishTrack(
        LocalVideoTrack.createVideoTrack("digital-human-face", videoSource),
        // One small layer: a 320x240 face gains nothing from simulcast's extra encodes.
        new TrackPublishOptions({
          source: TrackSource.SOURCE_CAMERA,
          simulcast: false,
          videoEncoding: { maxBitrate: 400_000n, maxFramerate: FPS },
        }),
      ),
      participant.publishTrack(voiceTrack, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE })),
    ]);
    timeline("tracks published");

    let tick = 0;
    const video = setInterval(() => {
      const mouth = speaker.mouthOpen();
      // Silent, only the blinks and the sway move: half the frames suffice, and each one costs an encode.
      if (tick++ % 2 === 1 && mouth === 0 && !speaker.speaking) return;
      drawFrame(mouth);
    }, 1000 / FPS);
    const speaking = speaker.run();

    // Lines cut short (the participant left) are not finished by sentences synthesized after the cut.
    let interruptions = 0;
    const say = async (line: Line | string) => {
      const parts = typeof line === "string" ? prepare(line) : line;
      const at = interruptions;
      const queued: Promise<void>[] = [];
      for (const part of parts) {
        const speech = await part.speech;
        if (at !== interruptions) return;
        if (speech) queued.push(speaker.say(speech, part.text));
      }
      await Promise.all(queued);
    };

    // The session's participant; with no metadata (a hand-made dispatch), whoever joins who is not an agent.
    const isTheParticipant = (p: RemoteParticipant) =>
      p.kind !== ParticipantKind.AGENT && (job.participantIdentity === undefined || p.identity === job.participantIdentity);
    let lastAcknowledgement: string | undefined;
    let timeLimit: NodeJS.Timeout | undefined;
    const stopListening: (() => void)[] = [];

    // The greeting starts once the participant is there and can hear it: when someone subscribed to the
    // voice (audio sent before that is lost), or at most GREETING_WAIT_MS after they joined (a client
    // that subscribes to nothing still gets its greeting).
    let greetFor: RemoteParticipant | undefined;
    let voiceSubscribed = false;
    let greeted = false;
    let greetingWait: NodeJS.Timeout | undefined;
    const greet = () => {
      if (greeted || greetFor === undefined) return;
      greeted = true;
      clearTimeout(greetingWait);
      const line = greetingLine ?? greetingOf(greetFor.identity);
      if (line === undefined) return;
      timeline("greeting started");
      say(line).catch(sayFailed);
    };
    const welcome = (p: RemoteParticipant) => {
      if (!isTheParticipant(p) || greetFor !== undefined) return;
      greetFor = p;
      timeline("participant seen");
      if (voiceSubscribed) greet();
      else greetingWait = setTimeout(greet, GREETING_WAIT_MS);
      // The session becomes active as they join; its maximum duration runs from about now.
      if (job.maxDurationS !== undefined && job.maxDurationS > 2 * FAREWELL_LEAD_S) {
        timeLimit = setTimeout(() => say(farewellAtTimeLimit(p.identity)).catch(sayFailed), (job.maxDurationS - FAREWELL_LEAD_S) * 1000);
      }
    };
    ctx.room.on(RoomEvent.LocalTrackSubscribed, (track) => {
      if (track.sid !== voiceTrack.sid) return;
      voiceSubscribed = true;
      greet();
    });
    for (const p of ctx.room.remoteParticipants.values()) welcome(p);
    ctx.room.on(RoomEvent.ParticipantConnected, welcome);
    ctx.room.on(RoomEvent.ParticipantDisconnected, (p: RemoteParticipant) => {
      if (!isTheParticipant(p)) return;
      interruptions++;
      speaker.interrupt();
      say(farewellOnLeaving(p.identity)).catch(sayFailed);
    });
    ctx.room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack, _publication, p: RemoteParticipant) => {
      if (track.kind !== TrackKind.KIND_AUDIO || !isTheParticipant(p)) return;
      const audio = new AudioStream(track, { sampleRate: 16_000, numChannels: 1 });
      stopListening.push(
        listener.listen(audio, {
          speechStarted: () => logger.debug("participant started speaking"),
          speechEnded: (durationS, speech) => {
            logger.info({ duration_s: durationS }, "participant stopped speaking");
            const endedAt = new Date();
            const startedAt = new Date(endedAt.getTime() - durationS * 1000);
            transcriber
              ?.transcribe(speech)
              .then((text) => {
                if (text === "") return;
                logger.info({ text }, "participant said");
                caption(p.identity, track.sid, text);
                transcript?.add({ speaker: "participant", text, startedAt, endedAt });
              })
              .catch((error: unknown) => logger.warn({ error: String(error) }, "could not transcribe a turn"));
            if (speaker.speaking) return;
            lastAcknowledgement = acknowledgement(lastAcknowledgement);
            say(lastAcknowledgement).catch(sayFailed);
          },
        }),
      );
    });

    // The room deleted or closed means the session ended: the transcript's last segment has been said.
    let roomGone = false;
    const stop = async () => {
      clearInterval(video);
      clearTimeout(timeLimit);
      clearTimeout(greetingWait);
      for (const stopOne of stopListening) stopOne();
      speaker.stop();
      await speaking.catch(() => undefined);
      // A turn still being transcribed is lost with the job; what was said before it is sent.
      await transcript?.finish(roomGone);
    };
    ctx.addShutdownCallback(stop);
    await new Promise<void>((resolve) =>
      ctx.room.once(RoomEvent.Disconnected, (reason: DisconnectReason) => {
        roomGone = reason === DisconnectReason.ROOM_DELETED || reason === DisconnectReason.ROOM_CLOSED;
        resolve();
      }),
    );
    await stop();
  },
});
