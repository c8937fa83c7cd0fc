/**
 * One session's job, in the order it runs (`run`): read who to be from the dispatch, connect to the room
 * while the face is built, publish a face and a voice (face/presence.ts), start the conversation on
 * LiveKit's voice pipeline (conversation/conversation-session.ts: an LLM's replies in the persona, or
 * acknowledgements without one), let the session's backend drive it (service/backend-conversation.ts),
 * greet the participant once they can hear it and take its leave when they go or the session's time runs
 * out (participant-greeting.ts), and stop when the room goes.
 *
 * What either side says is published as a live caption (conversation/captions.ts): the digital human's
 * lines verbatim as they start to be heard, the participant's turns as the recognizer heard them; and,
 * where the service's address is known (DHS_API_URL), posted to the session's transcript
 * (service/transcript-poster.ts) too, the digital human's as far as they were heard.
 *
 * A session whose dispatch asks for a recording is recorded from before the digital human's first word
 * (the participant is told first), and its file is uploaded when the job stops
 * (recording/session-recording.ts).
 */
import type { CatalogVoice, VoiceProvider } from "@dhs/catalog";
import { type JobContext, log, type VAD } from "@livekit/agents";
import { DisconnectReason, ParticipantKind, type RemoteParticipant, RoomEvent, TrackSource } from "@livekit/rtc-node";
import { publishCaption } from "../conversation/captions.js";
import { type Conversation, createConversation, joinRoom } from "../conversation/conversation-session.js";
import { recordedFile } from "../conversation/framework-internals.js";
import type { ReplyFailure } from "../conversation/guarded-reply.js";
import { type LlmSettings, llmSettings } from "../conversation/llm-settings.js";
import { Presence } from "../face/presence.js";
import type { PocketSphinxTranscriber } from "../hearing/pocketsphinx-transcriber.js";
import { jobSpeech } from "../providers/job-speech.js";
import { SessionRecording } from "../recording/session-recording.js";
import { BackendConversation } from "../service/backend-conversation.js";
import { knowledgeSearch } from "../service/knowledge-search.js";
import { type ServiceAccess, serviceAccess } from "../service/service-client.js";
import { sessionVoice } from "../service/session-voice.js";
import { toolRunner } from "../service/tool-runner.js";
import { TranscriptPoster } from "../service/transcript-poster.js";
import { SAMPLE_RATE } from "../speaking/speaker.js";
import type { Voice } from "../speaking/voice.js";
import { workerConfig } from "../worker/worker-config.js";
import { reportToWorker } from "../worker/worker-report.js";
import { type JobInfo, parseJobMetadata } from "./job-metadata.js";
import { LOG, STEP, type Step } from "./log-lines.js";
import { ParticipantGreeting } from "./participant-greeting.js";

/** What a job process loads while it waits for a job (agent.ts's prewarm). */
export interface Loaded {
  voice: Voice;
  vad: VAD;
  /** Undefined where none is installed: the job captions only its own lines (worker.ts said so once). */
  transcriber: PocketSphinxTranscriber | undefined;
  /** The catalog's voices, the default first (DIGITAL_HUMANS_FILE, read as the process started). */
  voices: readonly CatalogVoice[];
}

export class SessionJob {
  private readonly job: JobInfo;
  private readonly logger: ReturnType<typeof log>;
  private readonly llm: LlmSettings | undefined;
  /** Where the service is; undefined where the worker does not know it, or the dispatch has no session. */
  private readonly service: ServiceAccess | undefined;
  private readonly transcript: TranscriptPoster | undefined;
  /** Undefined when the dispatch asks for no recording. */
  private readonly recording: SessionRecording | undefined;
  /** Its face and voice; built while the job connects. */
  private presence: Presence | undefined;
  private conversation: Conversation | undefined;
  /** The backend's part; made once the conversation runs, and what happens before goes without it. */
  private backend: BackendConversation | undefined;
  private replyFailures = 0;

  private greeting: ParticipantGreeting | undefined;
  /** The room was deleted or closed: the session ended, so the transcript's last segment has been said. */
  private roomGone = false;

  constructor(
    private readonly ctx: JobContext,
    private readonly loaded: Loaded,
  ) {
    this.job = parseJobMetadata(ctx.job.metadata, ctx.job.agentName);
    this.logger = log().child({ session_id: this.job.sessionId, digital_human: this.job.digitalHuman.name });
    const config = workerConfig();
    const llm = llmSettings(config);
    this.llm = "settings" in llm ? llm.settings : undefined;
    this.service = serviceAccess(config, this.job.sessionId, ctx.job.room?.name);
    this.transcript =
      this.service && new TranscriptPoster({ ...this.service, idPrefix: ctx.job.id, onError: (message) => this.logger.warn(message) });
    this.recording = this.job.recording
      ? new SessionRecording({
          service: this.service,
          participant: () => ctx.room.localParticipant,
          directory: ctx.sessionDirectory,
          logger: this.logger,
          livekit: config,
        })
      : undefined;
  }

  async run(): Promise<void> {
    // Started again if it has died while the process waited.
    this.loaded.transcriber?.warm();
    this.timeline(STEP.jobStarted);
    this.describePersona();
    // Connecting first: LiveKit's signalling and the peer connection proceed (in rtc-node's own threads)
    // while this process builds the face.
    const connected = this.ctx.connect().then(() => this.timeline(STEP.connected));
    const presence = this.makePresence();
    this.presence = presence;
    await connected;
    // The participant is told of a recording, and the service agrees to it, while the tracks are
    // published: before the session starts, so before anything is said.
    const [, record] = await Promise.all([this.publish(presence), this.recording?.start() ?? false]);
    const conversation = this.startConversation(presence);
    this.conversation = conversation;
    await joinRoom(conversation, this.ctx, this.job, this.isTheParticipant, record);
    this.startBackend(conversation);
    this.greeting = new ParticipantGreeting({
      room: this.ctx.room,
      job: this.job,
      voiceTrackSid: () => presence.voiceTrack.sid,
      isTheParticipant: this.isTheParticipant,
      say: (text) => conversation.session.say(text),
      interrupt: () => void conversation.session.interrupt({ force: true }),
      // The backend's says follow the greeting, which the session now holds.
      greeted: () => this.backend?.greeted(),
      timeline: this.timeline,
    });
    this.greeting.start();
    this.ctx.addShutdownCallback(() => this.stop());
    await this.roomClosed();
    await this.stop();
  }

  /** Each step of a session's start and of each turn, for the end-to-end tier's timeline (docs/digital-human.md, "Response time"). */
  private readonly timeline = (step: Step, fields: Record<string, number> = {}) => this.logger.info({ step, ...fields }, LOG.timeline);

  /** The session's participant; with no metadata (a hand-made dispatch), whoever joins who is not an agent. */
  private readonly isTheParticipant = (p: RemoteParticipant) =>
    p.kind !== ParticipantKind.AGENT && (this.job.participantIdentity === undefined || p.identity === this.job.participantIdentity);

  private describePersona(): void {
    const { persona } = this.job;
    this.logger.info(
      {
        voice: persona.voice,
        instructions_chars: persona.instructions?.length ?? 0,
        llm: this.llm ? (persona.llm.model ?? this.llm.defaultModel) : null,
      },
      LOG.personaReceived,
    );
  }

  private makePresence(): Presence {
    const presence = new Presence(this.job.digitalHuman.name, this.job.digitalHuman.id, {
      // The line as it starts to be heard: tests match it against the audio the browser receives.
      lineStarted: (text) => {
        this.logger.info({ text }, LOG.saying);
        this.caption(this.ctx.room.localParticipant?.identity ?? "", presence.voiceTrack.sid, text);
        this.backend?.lineStarted(text);
      },
      // In the transcript as far as it was heard: a line cut off keeps its words, timed to the cut.
      lineHeard: ({ text, startedAt, endedAt, interrupted }) => {
        if (interrupted) this.logger.info({ text }, LOG.cutOff);
        this.transcript?.add({ speaker: "digital_human", text, startedAt, endedAt });
        this.backend?.lineHeard(interrupted);
      },
      replyStarted: () => this.timeline(STEP.firstAudioSent),
    });
    return presence;
  }

  private async publish(presence: Presence): Promise<void> {
    const participant = this.ctx.room.localParticipant;
    if (!participant) throw new Error("connected without a local participant");
    await presence.publish(participant);
    this.timeline(STEP.tracksPublished);
  }

  /** Captions go out once connected; one that cannot be sent costs the caption, never the session. */
  private caption(speakerIdentity: string, trackSid: string | undefined, text: string): void {
    const local = this.ctx.room.localParticipant;
    if (!local || !this.ctx.room.isConnected) return;
    publishCaption(local, { speaker: speakerIdentity, trackSid, text }).catch((error: unknown) =>
      this.logger.warn({ error: String(error) }, "could not publish a caption"),
    );
  }

  private startConversation(presence: Presence): Conversation {
    const { vad, voice, transcriber, voices } = this.loaded;
    const speech = jobSpeech({
      config: workerConfig(),
      voices,
      persona: this.job.persona,
      offlineVoice: voice,
      offlineTranscriber: transcriber,
      sampleRate: SAMPLE_RATE,
      onVoiceFallback: (why) => {
        this.logger.warn({ voice: speech.described.voice, provider: speech.described.voice_provider, error: why }, LOG.voiceFallback);
        void reportToWorker({ event: "tts_fallback", provider: speech.described.voice_provider as VoiceProvider });
      },
    });
    this.logger.info({ ...speech.described, language: this.job.persona.language }, LOG.speech);
    return createConversation(
      this.job,
      {
        vad,
        tts: speech.tts,
        transcriber: speech.transcriber,
        llm: this.llm,
        speaker: presence.speaker,
        tools:
          this.service &&
          toolRunner({
            service: this.service,
            room: this.ctx.room,
            participantIdentity: () => [...this.ctx.room.remoteParticipants.values()].find(this.isTheParticipant)?.identity,
          }),
        searchKnowledge:
          this.service &&
          knowledgeSearch({
            service: this.service,
            room: this.ctx.room,
            onError: (problem) => this.logger.warn({ problem }, "could not search the documents"),
          }),
      },
      {
        participantSaid: (text, startedAt, endedAt, knowledge) => {
          this.logger.info({ text }, LOG.participantSaid);
          const speaker = [...this.ctx.room.remoteParticipants.values()].find(this.isTheParticipant);
          const microphone = [...(speaker?.trackPublications.values() ?? [])].find((t) => t.source === TrackSource.SOURCE_MICROPHONE);
          this.caption(speaker?.identity ?? this.job.participantIdentity ?? "participant", microphone?.sid, text);
          this.transcript?.add({ speaker: "participant", text, startedAt, endedAt });
          this.backend?.participantSaid(text, startedAt, endedAt, knowledge);
        },
        step: this.timeline,
        sttFailed: (error) => {
          this.logger.warn({ error: String(error) }, "could not transcribe a turn");
          void reportToWorker({ event: "stt_failed" });
        },
        replyFailed: (failure) => this.replyFailed(failure),
      },
    );
  }

  private replyFailed(failure: ReplyFailure): void {
    this.replyFailures++;
    const why = failure.kind === "error" ? String(failure.error) : "no token for the deadline";
    this.logger.warn({ kind: failure.kind, error: why, reply_failures: this.replyFailures }, "the LLM's reply failed: apologizing");
    void reportToWorker({ event: "llm_reply_failed", kind: failure.kind });
  }

  /** The session's backend drives the conversation: its says after the greeting, its notes to the LLM. */
  private startBackend(conversation: Conversation): void {
    if (!this.service) return;
    const voice = sessionVoice(conversation.session, conversation.agent, { hasLlm: this.llm !== undefined });
    this.backend = new BackendConversation({
      room: this.ctx.room,
      service: this.service,
      jobId: this.ctx.job.id,
      voice,
      logger: this.logger,
    });
    this.backend.start();
  }

  private roomClosed(): Promise<void> {
    return new Promise((resolve) =>
      this.ctx.room.once(RoomEvent.Disconnected, (reason: DisconnectReason) => {
        this.roomGone = reason === DisconnectReason.ROOM_DELETED || reason === DisconnectReason.ROOM_CLOSED;
        resolve();
      }),
    );
  }

  private readonly stop = async (): Promise<void> => {
    this.greeting?.stop();
    this.backend?.stop();
    await this.presence?.stop();
    await this.conversation?.session.close().catch(() => undefined);
    // The session closed its recorder, so the file is whole: uploaded while the rest is sent.
    const recorded = this.recording?.finish(recordedFile(this.conversation?.session));
    this.loaded.transcriber?.close();
    // A say cut by the close is reported so.
    await this.backend?.flush();
    // A turn still being transcribed is lost with the job; what was said before it is sent.
    await this.transcript?.finish(this.roomGone);
    await recorded;
  };
}
