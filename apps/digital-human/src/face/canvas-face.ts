/**
 * A drawn face on @napi-rs/canvas (Skia, prebuilt binaries from npm): it breathes, sways a little and
 * blinks at random intervals, and its mouth opens as far as it is told. Its hue comes from the digital
 * human's id, so each one in the catalog looks its own; its name is written under it when the machine
 * has a font (a bare server may have none; the face does not need one).
 */
import { type Canvas, createCanvas, GlobalFonts, type SKRSContext2D } from "@napi-rs/canvas";
import type { FaceRenderer, Region } from "./face-renderer.js";

export const WIDTH = 320;
export const HEIGHT = 240;
const CX = WIDTH / 2;
const CY = 112;
const MOUTH_Y = 52;
const MOUTH_HALF_WIDTH = 22;
const MOUTH_MAX_OPEN = 26;
const SWAY_PX = 3;

/** Where the mouth is drawn whatever the sway: tests compare its pixels while speaking and while silent. */
export const MOUTH_REGION: Region = {
  x: CX - MOUTH_HALF_WIDTH - SWAY_PX - 4,
  y: CY + MOUTH_Y - 6 - SWAY_PX,
  width: 2 * (MOUTH_HALF_WIDTH + SWAY_PX + 4),
  height: MOUTH_MAX_OPEN + 12 + 2 * SWAY_PX,
};

/** A stable hue (0..359) for a digital human's id. */
export function hueOf(id: string): number {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return hash % 360;
}

export class CanvasFace implements FaceRenderer {
  readonly width = WIDTH;
  readonly height = HEIGHT;
  private readonly canvas = createCanvas(WIDTH, HEIGHT);
  private readonly g: SKRSContext2D;
  private readonly hue: number;
  private readonly backdrop: Canvas;
  private readonly head: Canvas;
  private nextBlinkMs: number;
  private blinkStartMs = Number.NEGATIVE_INFINITY;

  constructor(
    name: string,
    id: string,
    private readonly random: () => number = Math.random,
  ) {
    this.g = this.canvas.getContext("2d");
    this.hue = hueOf(id);
    this.backdrop = this.drawBackdrop(GlobalFonts.families.length > 0 ? name : undefined);
    this.head = this.drawHead();
    this.nextBlinkMs = 1500 + this.random() * 3000;
  }

  render(timeMs: number, mouthOpen: number): Uint8Array {
    const g = this.g;
    // Slow, unrelated periods so the motion never looks like a loop.
    const dx = SWAY_PX * Math.sin(timeMs / 1700);
    const dy = (SWAY_PX / 2) * Math.sin(timeMs / 1100) + SWAY_PX / 2;
    // What does not change is drawn once: each frame copies two layers and draws the eyes and mouth.
    g.drawImage(this.backdrop, 0, 0);
    g.drawImage(this.head, dx, dy);
    const x = CX + dx;
    const y = CY + dy;
    this.drawEyes(x, y, this.eyeOpenness(timeMs));
    this.drawMouth(x, y + MOUTH_Y, Math.max(0, Math.min(1, mouthOpen)));
    return this.canvas.data();
  }

  /** Background and name: they never move. */
  private drawBackdrop(name: string | undefined): Canvas {
    const layer = createCanvas(WIDTH, HEIGHT);
    const g = layer.getContext("2d");
    const background = g.createLinearGradient(0, 0, 0, HEIGHT);
    background.addColorStop(0, `hsl(${this.hue}, 45%, 22%)`);
    background.addColorStop(1, `hsl(${this.hue}, 50%, 10%)`);
    g.fillStyle = background;
    g.fillRect(0, 0, WIDTH, HEIGHT);
    if (name) {
      g.fillStyle = `hsl(${this.hue}, 80%, 85%)`;
      g.font = "bold 18px sans-serif";
      g.textAlign = "center";
      g.fillText(name, CX, HEIGHT - 12);
    }
    return layer;
  }

  /** Shoulders, neck, head, hair and nose, at rest; each frame places it with the sway. */
  private drawHead(): Canvas {
    const layer = createCanvas(WIDTH, HEIGHT);
    const g = layer.getContext("2d");
    const hue = this.hue;
    const x = CX;
    const y = CY;
    g.fillStyle = `hsl(${hue}, 55%, 42%)`;
    g.beginPath();
    g.ellipse(x, y + 150, 120, 60, 0, Math.PI, 2 * Math.PI);
    g.fill();
    g.fillStyle = "hsl(28, 45%, 62%)";
    g.fillRect(x - 22, y + 70, 44, 30);
    g.fillStyle = "hsl(28, 55%, 72%)";
    g.beginPath();
    g.ellipse(x, y, 66, 84, 0, 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = `hsl(${hue}, 35%, 25%)`;
    g.beginPath();
    g.ellipse(x, y - 52, 70, 42, 0, Math.PI, 2 * Math.PI);
    g.fill();
    g.strokeStyle = "hsl(28, 40%, 55%)";
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(x, y + 4);
    g.lineTo(x - 6, y + 28);
    g.lineTo(x + 2, y + 30);
    g.stroke();
    return layer;
  }

  /** 1 open, 0 shut: a blink lasts 160 ms and comes every 2 to 6 s. */
  private eyeOpenness(timeMs: number): number {
    if (timeMs >= this.nextBlinkMs) {
      this.blinkStartMs = this.nextBlinkMs;
      this.nextBlinkMs = Math.max(timeMs, this.blinkStartMs + 2000 + this.random() * 4000);
    }
    const into = timeMs - this.blinkStartMs;
    if (into < 0 || into > 160) return 1;
    return Math.abs(into - 80) / 80;
  }

  private drawEyes(x: number, y: number, openness: number): void {
    const g = this.g;
    for (const side of [-1, 1]) {
      const ex = x + side * 26;
      const ey = y - 12;
      g.fillStyle = "#fdfdfd";
      g.beginPath();
      g.ellipse(ex, ey, 13, Math.max(1, 9 * openness), 0, 0, 2 * Math.PI);
      g.fill();
      if (openness > 0.3) {
        g.fillStyle = `hsl(${this.hue}, 60%, 30%)`;
        g.beginPath();
        g.arc(ex, ey, 5.5 * openness, 0, 2 * Math.PI);
        g.fill();
      }
      g.strokeStyle = `hsl(${this.hue}, 35%, 25%)`;
      g.lineWidth = 3;
      g.beginPath();
      g.moveTo(ex - 14, ey - 16);
      g.quadraticCurveTo(ex, ey - 22, ex + 14, ey - 16);
      g.stroke();
    }
  }

  private drawMouth(x: number, y: number, open: number): void {
    const g = this.g;
    const height = 2 + open * MOUTH_MAX_OPEN;
    const halfWidth = MOUTH_HALF_WIDTH - open * 6;
    g.fillStyle = "hsl(350, 45%, 28%)";
    g.beginPath();
    g.ellipse(x, y + height / 2, halfWidth, height / 2, 0, 0, 2 * Math.PI);
    g.fill();
    if (open > 0.25) {
      g.fillStyle = "#f4f1ea";
      g.fillRect(x - halfWidth * 0.6, y + 1, halfWidth * 1.2, Math.min(5, height * 0.2));
    }
    g.strokeStyle = "hsl(355, 45%, 45%)";
    g.lineWidth = 2.5;
    g.beginPath();
    g.ellipse(x, y + height / 2, halfWidth, height / 2, 0, 0, 2 * Math.PI);
    g.stroke();
  }
}
