/**
 * Measures, inside the page, what the browser receives from the digital human: the loudness of its voice
 * (Web Audio, every 50 ms) and how much its video changes, over the whole frame and inside the mouth
 * region (frames drawn to a canvas at 15 fps). Times are Date.now() so they compare with the worker's logs.
 */
import type { Page } from "playwright-core";

export interface AudioSample {
  at: number;
  rms: number;
}

export interface VideoSample {
  at: number;
  /** Mean absolute RGB change from the previous sample, 0..255. */
  frame: number;
  mouth: number;
}

export interface MediaProbe {
  audio: AudioSample[];
  video: VideoSample[];
}

/** The face's mouth region in its own frame (apps/digital-human's MOUTH_REGION, 320x240). */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Starts measuring once the page has the digital human's audio track and video element. */
export async function startMediaProbe(page: Page, mouth: Region, frameSize: { width: number; height: number }): Promise<void> {
  await page.waitForFunction(() => {
    const demo = (window as unknown as { demo: { remoteAudioTrack?: MediaStreamTrack } }).demo;
    return demo.remoteAudioTrack && document.querySelector("#remote video");
  });
  // A script, not a function: a transpiler's helpers (esbuild's __name) do not exist in the page.
  await page.addScriptTag({ content: `(${PROBE_SCRIPT})(${JSON.stringify(mouth)}, ${JSON.stringify(frameSize)});` });
}

const PROBE_SCRIPT = `function (mouth, frameSize) {
  var probe = { audio: [], video: [] };
  window.probe = probe;
  var context = new AudioContext();
  context.resume();
  var analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  context.createMediaStreamSource(new MediaStream([window.demo.remoteAudioTrack])).connect(analyser);
  var buffer = new Float32Array(analyser.fftSize);
  setInterval(function () {
    analyser.getFloatTimeDomainData(buffer);
    var sum = 0;
    for (var i = 0; i < buffer.length; i++) sum += buffer[i] * buffer[i];
    probe.audio.push({ at: Date.now(), rms: Math.sqrt(sum / buffer.length) });
  }, 50);

  var video = document.querySelector("#remote video");
  var canvas = document.createElement("canvas");
  canvas.width = frameSize.width;
  canvas.height = frameSize.height;
  var g = canvas.getContext("2d", { willReadFrequently: true });
  var previous;
  function change(a, b, r) {
    var sum = 0;
    for (var y = r.y; y < r.y + r.height; y++) {
      for (var x = r.x; x < r.x + r.width; x++) {
        var i = (y * frameSize.width + x) * 4;
        sum += Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
      }
    }
    return sum / (r.width * r.height * 3);
  }
  setInterval(function () {
    if (video.videoWidth === 0) return;
    g.drawImage(video, 0, 0, frameSize.width, frameSize.height);
    var pixels = g.getImageData(0, 0, frameSize.width, frameSize.height).data;
    if (previous) {
      probe.video.push({
        at: Date.now(),
        frame: change(pixels, previous, { x: 0, y: 0, width: frameSize.width, height: frameSize.height }),
        mouth: change(pixels, previous, mouth),
      });
    }
    previous = pixels;
  }, 1000 / 15);
}`;

export async function readMediaProbe(page: Page): Promise<MediaProbe> {
  return page.evaluate(() => (window as unknown as { probe: MediaProbe }).probe);
}

/** Audio samples louder than this are speech; the silence between words is far below it. */
export const SPEAKING_RMS = 0.02;

/** Whether the digital human was audible around a moment (the audio of ±150 ms). */
export function speakingAt(audio: AudioSample[], at: number): boolean | undefined {
  const near = audio.filter((s) => Math.abs(s.at - at) <= 150);
  if (near.length === 0) return undefined;
  return Math.max(...near.map((s) => s.rms)) > SPEAKING_RMS;
}

export const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

/** The middle value (the mean of the two middle ones for an even count): the tiers' printed latencies. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
