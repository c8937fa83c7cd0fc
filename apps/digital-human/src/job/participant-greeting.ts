/**
 * The job's manners with the session's participant: greet them once they are there and can hear it (when
 * someone subscribed to the voice, since audio sent before that is lost, or at most GREETING_WAIT_MS after
 * they joined, so a client that subscribes to nothing still gets its greeting), say goodbye eight seconds
 * before the session's maximum duration, and when they leave.
 */
import type { RemoteParticipant, Room } from "@livekit/rtc-node";
import { RoomEvent } from "@livekit/rtc-node";
import { FAREWELL_LEAD_S, farewellAtTimeLimit, farewellOnLeaving, greeting } from "../conversation/lines.js";
import { spokenLines } from "../conversation/spoken-lines.js";
import type { JobInfo } from "./job-metadata.js";
import { STEP, type Step } from "./log-lines.js";

/** How long the greeting waits, after the participant joined, for someone to subscribe to the voice. */
const GREETING_WAIT_MS = 1500;

export interface GreetingParts {
  room: Room;
  job: JobInfo;
  /** The track the digital human speaks on. */
  voiceTrackSid: () => string | undefined;
  isTheParticipant(participant: RemoteParticipant): boolean;
  say(text: string): void;
  /** Cuts whatever is being said (the participant left). */
  interrupt(): void;
  /** The greeting was said, or there is none: what waits for it may follow. */
  greeted(): void;
  timeline(step: Step): void;
}

export class ParticipantGreeting {
  /** Whom the greeting is for, once they joined; whether they can hear it yet; whether it was said. */
  private greetFor: RemoteParticipant | undefined;
  private voiceSubscribed = false;
  private greeted = false;
  private greetingWait: NodeJS.Timeout | undefined;
  private timeLimit: NodeJS.Timeout | undefined;

  constructor(private readonly parts: GreetingParts) {}

  start(): void {
    const { room } = this.parts;
    room.on(RoomEvent.LocalTrackSubscribed, (track) => {
      if (track.sid !== this.parts.voiceTrackSid()) return;
      this.voiceSubscribed = true;
      this.greet();
    });
    for (const p of room.remoteParticipants.values()) this.welcome(p);
    room.on(RoomEvent.ParticipantConnected, (p) => this.welcome(p));
    room.on(RoomEvent.ParticipantDisconnected, (p: RemoteParticipant) => {
      if (!this.parts.isTheParticipant(p)) return;
      this.parts.interrupt();
      this.parts.say(farewellOnLeaving(p.identity, spokenLines(this.parts.job.persona.language)));
    });
  }

  stop(): void {
    clearTimeout(this.timeLimit);
    clearTimeout(this.greetingWait);
  }

  private welcome(p: RemoteParticipant): void {
    if (!this.parts.isTheParticipant(p) || this.greetFor !== undefined) return;
    this.greetFor = p;
    this.parts.timeline(STEP.participantSeen);
    if (this.voiceSubscribed) this.greet();
    else this.greetingWait = setTimeout(() => this.greet(), GREETING_WAIT_MS);
    // The session becomes active as they join; its maximum duration runs from about now.
    const { maxDurationS } = this.parts.job;
    if (maxDurationS !== undefined && maxDurationS > 2 * FAREWELL_LEAD_S) {
      this.timeLimit = setTimeout(
        () => this.parts.say(farewellAtTimeLimit(p.identity, spokenLines(this.parts.job.persona.language))),
        (maxDurationS - FAREWELL_LEAD_S) * 1000,
      );
    }
  }

  /** A greeting of null: nothing until spoken to. */
  private greet(): void {
    if (this.greeted || this.greetFor === undefined) return;
    this.greeted = true;
    clearTimeout(this.greetingWait);
    const { persona, digitalHuman } = this.parts.job;
    if (persona.greeting !== null) {
      this.parts.timeline(STEP.greetingStarted);
      this.parts.say(greeting(persona.greeting, this.greetFor.identity, digitalHuman.name));
    }
    this.parts.greeted();
  }
}
