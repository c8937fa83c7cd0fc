/**
 * The digital human's job, run by the agent worker in a process of its own for each room it is
 * dispatched to: join the room and publish a voice and a face. Both are synthetic (a quiet tone and
 * moving colour bars) so the whole path (dispatch, join, publish, subscribe in the browser) can be shown
 * with no model; a real digital human replaces `frames` with its renderer and TTS.
 */
import { defineAgent, type JobContext } from "@livekit/agents";
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  LocalVideoTrack,
  TrackPublishOptions,
  TrackSource,
  VideoBufferType,
  VideoFrame,
  VideoSource,
} from "@livekit/rtc-node";

const WIDTH = 320;
const HEIGHT = 240;
const FPS = 15;
const SAMPLE_RATE = 48_000;
const AUDIO_FRAME_MS = 20;

// One cycle of moving colour bars, drawn once: sending a frame then costs a copy, not a redraw, so a
// machine running many sessions (or a test's browser beside it) has its CPU for the media.
const CYCLE = 16;
const FRAMES = Array.from({ length: CYCLE }, (_, tick) => {
  const data = new Uint8Array(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 4;
      const band = Math.floor(((x + (tick * WIDTH) / CYCLE) % WIDTH) / (WIDTH / 8));
      data[i] = band & 1 ? 230 : 40;
      data[i + 1] = band & 2 ? 200 : 60;
      data[i + 2] = band & 4 ? 255 : 90;
      data[i + 3] = 255;
    }
  }
  return new VideoFrame(data, WIDTH, HEIGHT, VideoBufferType.RGBA);
});

function videoFrame(tick: number): VideoFrame {
  return FRAMES[tick % CYCLE] as VideoFrame;
}

function audioFrame(sampleOffset: number): AudioFrame {
  const samples = (SAMPLE_RATE * AUDIO_FRAME_MS) / 1000;
  const data = new Int16Array(samples);
  for (let i = 0; i < samples; i++) data[i] = Math.round(1500 * Math.sin((2 * Math.PI * 220 * (sampleOffset + i)) / SAMPLE_RATE));
  return new AudioFrame(data, SAMPLE_RATE, 1, samples);
}

export default defineAgent({
  entry: async (ctx: JobContext) => {
    await ctx.connect();
    const participant = ctx.room.localParticipant;
    if (!participant) throw new Error("connected without a local participant");

    const videoSource = new VideoSource(WIDTH, HEIGHT);
    const audioSource = new AudioSource(SAMPLE_RATE, 1);
    await participant.publishTrack(
      LocalVideoTrack.createVideoTrack("digital-human-face", videoSource),
      new TrackPublishOptions({ source: TrackSource.SOURCE_CAMERA }),
    );
    await participant.publishTrack(
      LocalAudioTrack.createAudioTrack("digital-human-voice", audioSource),
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );

    let tick = 0;
    const video = setInterval(() => videoSource.captureFrame(videoFrame(tick++)), 1000 / FPS);
    let sampleOffset = 0;
    let speaking = true;
    ctx.addShutdownCallback(async () => {
      speaking = false;
      clearInterval(video);
    });
    // captureFrame paces itself on the source's queue, so this loop runs in real time.
    while (speaking && ctx.room.isConnected) {
      await audioSource.captureFrame(audioFrame(sampleOffset));
      sampleOffset += (SAMPLE_RATE * AUDIO_FRAME_MS) / 1000;
    }
    clearInterval(video);
  },
});
