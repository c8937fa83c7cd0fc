/**
 * The participant's microphone as the agent session's audio input, behind the loudness gate: while the
 * room is quiet no frame enters the framework (its VADs, its speech-to-text, the web streams between them
 * cost about 6% of a core per session hearing every frame of silence). Frames are read from the
 * participant's microphone track with rtc-node's AudioStream at the recognizer's rate, as LiveKit's own
 * RoomIO input does, and a track published again (the participant rejoined) is followed.
 */
import { ReadableStream, type ReadableStreamDefaultController } from "node:stream/web";
import { voice } from "@livekit/agents";
import {
  type AudioFrame,
  AudioStream,
  type RemoteParticipant,
  type RemoteTrack,
  type RemoteTrackPublication,
  type Room,
  RoomEvent,
  TrackKind,
  TrackSource,
} from "@livekit/rtc-node";
import { LoudnessGate } from "./loudness-gate.js";

export class GatedParticipantInput extends voice.AudioInput {
  /** Set by the session's user state: the gate stays open while the VAD hears speech. */
  userSpeaking = false;
  private controller: ReadableStreamDefaultController<AudioFrame> | undefined;
  private attached = true;
  private reading: AudioStream | undefined;
  private closed = false;

  constructor(
    private readonly room: Room,
    private readonly isTheParticipant: (participant: RemoteParticipant) => boolean,
    private readonly sampleRate: number,
  ) {
    super();
    this.multiStream.addInputStream(
      new ReadableStream<AudioFrame>({
        start: (controller) => {
          this.controller = controller;
        },
      }),
    );
    room.on(RoomEvent.TrackSubscribed, this.onTrackSubscribed);
    for (const participant of room.remoteParticipants.values())
      for (const publication of participant.trackPublications.values())
        if (publication.track) this.onTrackSubscribed(publication.track, publication, participant);
  }

  override setAttached(attached: boolean): void {
    this.attached = attached;
  }

  override async close(): Promise<void> {
    this.closed = true;
    this.room.off(RoomEvent.TrackSubscribed, this.onTrackSubscribed);
    await this.reading?.cancel().catch(() => undefined);
    try {
      this.controller?.close();
    } catch {
      // already closed
    }
    await super.close();
  }

  private readonly onTrackSubscribed = (track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant) => {
    if (this.closed || track.kind !== TrackKind.KIND_AUDIO || publication.source !== TrackSource.SOURCE_MICROPHONE) return;
    if (!this.isTheParticipant(participant)) return;
    void this.reading?.cancel().catch(() => undefined);
    const stream = new AudioStream(track, { sampleRate: this.sampleRate, numChannels: 1 });
    this.reading = stream;
    void this.follow(stream);
  };

  private async follow(stream: AudioStream): Promise<void> {
    const gate = new LoudnessGate();
    try {
      for await (const frame of stream) {
        if (this.closed || this.reading !== stream) break;
        if (!this.attached) continue;
        for (const heard of gate.pass(frame, this.userSpeaking)) this.controller?.enqueue(heard);
      }
    } catch {
      // The track went away: a new one, if it comes, is followed from its own subscription.
    }
  }
}
