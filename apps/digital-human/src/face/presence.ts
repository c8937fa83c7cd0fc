/**
 * What the participant sees and hears of the digital human: a drawn face (CanvasFace) and a voice track,
 * both published by the job itself. The voice track is fed by the Speaker, the agent session's audio
 * output, in real time; the face is redrawn 15 times a second with its mouth as open as the sound being
 * heard is loud.
 */
import {
  AudioSource,
  LocalAudioTrack,
  type LocalParticipant,
  LocalVideoTrack,
  TrackPublishOptions,
  TrackSource,
  VideoBufferType,
  VideoFrame,
  VideoSource,
} from "@livekit/rtc-node";
import { SAMPLE_RATE, Speaker, type SpeakerEvents } from "../speaking/speaker.js";
import { CanvasFace } from "./canvas-face.js";

const FPS = 15;
/** The AudioSource's queue: short, so what is sent is heard (and seen on the mouth) at once. */
const AUDIO_QUEUE_MS = 100;

export class Presence {
  readonly speaker: Speaker;
  readonly voiceTrack: LocalAudioTrack;
  private readonly face: CanvasFace;
  private readonly videoSource: VideoSource;
  private readonly started = performance.now();
  private video: NodeJS.Timeout | undefined;
  private speaking: Promise<void> | undefined;

  constructor(name: string, id: string, events: SpeakerEvents) {
    this.face = new CanvasFace(name, id);
    this.videoSource = new VideoSource(this.face.width, this.face.height);
    const audioSource = new AudioSource(SAMPLE_RATE, 1, AUDIO_QUEUE_MS);
    this.voiceTrack = LocalAudioTrack.createAudioTrack("digital-human-voice", audioSource);
    this.speaker = new Speaker(audioSource, AUDIO_QUEUE_MS / 20, events);
  }

  /** Publishes the face and the voice (each a round trip to LiveKit, so both at once) and starts them. */
  async publish(participant: LocalParticipant): Promise<void> {
    // A frame in the video source before anyone subscribes: a subscriber's first frame is the next one encoded.
    this.drawFrame(0);
    await Promise.all([
      participant.publishTrack(
        LocalVideoTrack.createVideoTrack("digital-human-face", this.videoSource),
        // One small layer: a 320x240 face gains nothing from simulcast's extra encodes.
        new TrackPublishOptions({
          source: TrackSource.SOURCE_CAMERA,
          simulcast: false,
          videoEncoding: { maxBitrate: 400_000n, maxFramerate: FPS },
        }),
      ),
      participant.publishTrack(this.voiceTrack, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE })),
    ]);
    let tick = 0;
    this.video = setInterval(() => {
      const mouth = this.speaker.mouthOpen();
      // Silent, only the blinks and the sway move: half the frames suffice, and each one costs an encode.
      if (tick++ % 2 === 1 && mouth === 0 && !this.speaker.speaking) return;
      this.drawFrame(mouth);
    }, 1000 / FPS);
    this.speaking = this.speaker.run();
  }

  async stop(): Promise<void> {
    clearInterval(this.video);
    this.speaker.stop();
    await this.speaking?.catch(() => undefined);
  }

  private drawFrame(mouth: number): void {
    const frame = this.face.render(performance.now() - this.started, mouth);
    this.videoSource.captureFrame(new VideoFrame(frame, this.face.width, this.face.height, VideoBufferType.RGBA));
  }
}
