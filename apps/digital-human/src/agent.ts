/**
 * The digital human's job, run by the agent worker in a process of its own for each room it is
 * dispatched to: publish a face and a voice (presence.ts), converse with the session's participant on
 * LiveKit's voice pipeline (conversation-session.ts: an LLM's replies in the persona, or acknowledgements
 * without one), greet them by name, and take its leave when they go or the session's time runs out.
 *
 * The ears (Silero VAD) load while the process waits for a job; the voice is the worker's
 * (voice-server.ts), shared by its jobs. What either side says is published as a live caption
 * (captions.ts): the digital human's lines verbatim as they start to be heard, the participant's turns
 * as the recognizer heard them; and, where the service's address is known (DHS_API_URL), posted to the
 * session's transcript (transcript-poster.ts) as well, the digital human's as far as they were heard.
 * There too, the session's backend drives the conversation (backend-conversation.ts): what it asks to be
 * said is said after the greeting, what it notes goes to the LLM, and the turns are reported.
 */
import { defineAgent, type JobContext, type JobProcess, log, type VAD } from "@livekit/agents";
import { DisconnectReason, ParticipantKind, type RemoteParticipant, RoomEvent, TrackSource } from "@livekit/rtc-node";
import { publishCaption } from "./conversation/captions.js";
import { createConversation, joinRoom } from "./conversation/conversation-session.js";
import { FAREWELL_LEAD_S, farewellAtTimeLimit, farewellOnLeaving, greeting } from "./conversation/lines.js";
import { llmSettings } from "./conversation/llm-settings.js";
import { Presence } from "./face/presence.js";
import { PocketSphinxTranscriber } from "./hearing/pocketsphinx-transcriber.js";
import { loadVad } from "./hearing/vad.js";
import { parseJobMetadata } from "./job/job-metadata.js";
import { BackendConversation } from "./service/backend-conversation.js";
import { serviceAccess } from "./service/service-client.js";
import { sessionVoice } from "./service/session-voice.js";
import { TranscriptPoster } from "./service/transcript-poster.js";
import { RemoteVoice } from "./speaking/remote-voice.js";
import type { Voice } from "./speaking/voice.js";
import { reportToWorker } from "./worker/worker-report.js";

/** How long the greeting waits, after the participant joined, for someone to subscribe to the voice. */
const GREETING_WAIT_MS = 1500;

interface Loaded {
  voice: Voice;
  vad: VAD;
  /** Undefined where none is installed: the job captions only its own lines (worker.ts said so once). */
  transcriber: PocketSphinxTranscriber | undefined;
}

export default defineAgent({
  prewarm: async (proc: JobProcess) => {
    // The worker's shared voice when it runs one; a job process run alone loads its own.
    const voiceUrl = process.env.DHS_VOICE_URL;
    const ownVoice = async () => (await import("./speaking/espeak-voice.js")).ESpeakVoice.load();
    const [voice, vad] = await Promise.all([voiceUrl ? new RemoteVoice(voiceUrl) : ownVoice(), loadVad()]);
    // One word through the voice while waiting for a job: the first request of a process (its HTTP client,
    // its connection) is not paid for by a participant's greeting.
    await voice.synthesize("Hello.").catch(() => undefined);
    const found = PocketSphinxTranscriber.find();
    const transcriber = "transcriber" in found ? found.transcriber : undefined;
    // Its model loads (a second of a core, 100 MB) while the process waits, not in the session's first turn.
    transcriber?.warm();
    proc.userData.loaded = { voice, vad, transcriber } satisfies Loaded;
  },

  entry: async (ctx: JobContext) => {
    const { voice, vad, transcriber } = ctx.proc.userData.loaded as Loaded;
    // Started again if it has died while the process waited.
    transcriber?.warm();
    const job = parseJobMetadata(ctx.job.metadata, ctx.job.agentName);
    const logger = log().child({ session_id: job.sessionId, digital_human: job.digitalHuman.name });
    // Each step of a session's start and of each turn, for the end-to-end tier's timeline (README).
    const timeline = (step: string, fields: Record<string, number> = {}) => logger.info({ step, ...fields }, "timeline");
    timeline("job started");
    const { persona } = job;
    const llm = llmSettings(process.env);
    logger.info(
      {
        voice: persona.voice,
        instructions_chars: persona.instructions?.length ?? 0,
        llm: "settings" in llm ? (persona.llm.model ?? llm.settings.defaultModel) : null,
      },
      "persona received",
    );
    // Connecting first: LiveKit's signalling and the peer connection proceed (in rtc-node's own threads)
    // while this process builds the face.
    const connected = ctx.connect().then(() => timeline("connected"));

    // Captions go out once connected; one that cannot be sent costs the caption, never the session.
    const caption = (speakerIdentity: string, trackSid: string | undefined, text: string) => {
      const local = ctx.room.localParticipant;
      if (!local || !ctx.room.isConnected) return;
      publishCaption(local, { speaker: speakerIdentity, trackSid, text }).catch((error: unknown) =>
        logger.warn({ error: String(error) }, "could not publish a caption"),
      );
    };
    // The service's copy of what was said, and its backend's part in the conversation; neither where the
    // worker does not know the service (worker.ts).
    const service = serviceAccess(process.env, job.sessionId, ctx.job.room?.name);
    const transcript = service && new TranscriptPoster({ ...service, idPrefix: ctx.job.id, onError: (message) => logger.warn(message) });
    let backend: BackendConversation | undefined;
    const presence = new Presence(job.digitalHuman.name, job.digitalHuman.id, {
      // The line as it starts to be heard: tests match it against the audio the browser receives.
      lineStarted: (text) => {
        logger.info({ text }, "saying");
        caption(ctx.room.localParticipant?.identity ?? "", presence.voiceTrack.sid, text);
        backend?.lineStarted(text);
      },
      // In the transcript as far as it was heard: a line cut off keeps its words, timed to the cut.
      lineHeard: ({ text, startedAt, endedAt, interrupted }) => {
        if (interrupted) logger.info({ text }, "cut off");
        transcript?.add({ speaker: "digital_human", text, startedAt, endedAt });
        backend?.lineHeard(interrupted);
      },
      replyStarted: () => timeline("first audio sent"),
    });

    await connected;
    const participant = ctx.room.localParticipant;
    if (!participant) throw new Error("connected without a local participant");
    await presence.publish(participant);
    timeline("tracks published");

    let replyFailures = 0;
    const conversation = createConversation(
      job,
      { vad, voice, transcriber, llm: "settings" in llm ? llm.settings : undefined, speaker: presence.speaker },
      {
        participantSaid: (text, startedAt, endedAt) => {
          logger.info({ text }, "participant said");
          const speaker = [...ctx.room.remoteParticipants.values()].find(isTheParticipant);
          const microphone = [...(speaker?.trackPublications.values() ?? [])].find((t) => t.source === TrackSource.SOURCE_MICROPHONE);
          caption(speaker?.identity ?? job.participantIdentity ?? "participant", microphone?.sid, text);
          transcript?.add({ speaker: "participant", text, startedAt, endedAt });
          backend?.participantSaid(text, startedAt, endedAt);
        },
        step: timeline,
        sttFailed: (error) => {
          logger.warn({ error: String(error) }, "could not transcribe a turn");
          void reportToWorker({ event: "stt_failed" });
        },
        replyFailed: (failure) => {
          replyFailures++;
          const why = failure.kind === "error" ? String(failure.error) : "no token for the deadline";
          logger.warn({ kind: failure.kind, error: why, reply_failures: replyFailures }, "the LLM's reply failed: apologizing");
          void reportToWorker({ event: "llm_reply_failed", kind: failure.kind });
        },
      },
    );
    // The session's participant; with no metadata (a hand-made dispatch), whoever joins who is not an agent.
    const isTheParticipant = (p: RemoteParticipant) =>
      p.kind !== ParticipantKind.AGENT && (job.participantIdentity === undefined || p.identity === job.participantIdentity);
    await joinRoom(conversation, ctx, job, isTheParticipant);
    if (service) {
      const voice = sessionVoice(conversation.session, conversation.agent, { hasLlm: "settings" in llm });
      backend = new BackendConversation({ room: ctx.room, service, jobId: ctx.job.id, voice, logger });
      backend.start();
    }
    const say = (text: string) => conversation.session.say(text);
    let timeLimit: NodeJS.Timeout | undefined;

    // The greeting starts once the participant is there and can hear it: when someone subscribed to the
    // voice (audio sent before that is lost), or at most GREETING_WAIT_MS after they joined (a client
    // that subscribes to nothing still gets its greeting). A greeting of null: nothing until spoken to.
    let greetFor: RemoteParticipant | undefined;
    let voiceSubscribed = false;
    let greeted = false;
    let greetingWait: NodeJS.Timeout | undefined;
    const greet = () => {
      if (greeted || greetFor === undefined) return;
      greeted = true;
      clearTimeout(greetingWait);
      if (persona.greeting !== null) {
        timeline("greeting started");
        say(greeting(persona.greeting, greetFor.identity, job.digitalHuman.name));
      }
      // The backend's says follow the greeting, which the session now holds.
      backend?.greeted();
    };
    const welcome = (p: RemoteParticipant) => {
      if (!isTheParticipant(p) || greetFor !== undefined) return;
      greetFor = p;
      timeline("participant seen");
      if (voiceSubscribed) greet();
      else greetingWait = setTimeout(greet, GREETING_WAIT_MS);
      // The session becomes active as they join; its maximum duration runs from about now.
      if (job.maxDurationS !== undefined && job.maxDurationS > 2 * FAREWELL_LEAD_S) {
        timeLimit = setTimeout(() => say(farewellAtTimeLimit(p.identity)), (job.maxDurationS - FAREWELL_LEAD_S) * 1000);
      }
    };
    ctx.room.on(RoomEvent.LocalTrackSubscribed, (track) => {
      if (track.sid !== presence.voiceTrack.sid) return;
      voiceSubscribed = true;
      greet();
    });
    for (const p of ctx.room.remoteParticipants.values()) welcome(p);
    ctx.room.on(RoomEvent.ParticipantConnected, welcome);
    ctx.room.on(RoomEvent.ParticipantDisconnected, (p: RemoteParticipant) => {
      if (!isTheParticipant(p)) return;
      void conversation.session.interrupt({ force: true });
      say(farewellOnLeaving(p.identity));
    });

    // The room deleted or closed means the session ended: the transcript's last segment has been said.
    let roomGone = false;
    const stop = async () => {
      clearTimeout(timeLimit);
      clearTimeout(greetingWait);
      backend?.stop();
      await presence.stop();
      await conversation.session.close().catch(() => undefined);
      transcriber?.close();
      // A say cut by the close is reported so.
      await backend?.flush();
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
