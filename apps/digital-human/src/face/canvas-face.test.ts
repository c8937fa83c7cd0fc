import { describe, expect, it } from "vitest";
import { CanvasFace, HEIGHT, hueOf, MOUTH_REGION, WIDTH } from "./canvas-face.js";
import type { Region } from "./face-renderer.js";

/** Mean absolute difference of the RGB values of two frames inside a region. */
function difference(a: Uint8Array, b: Uint8Array, region: Region = { x: 0, y: 0, width: WIDTH, height: HEIGHT }): number {
  let sum = 0;
  for (let y = region.y; y < region.y + region.height; y++) {
    for (let x = region.x; x < region.x + region.width; x++) {
      const i = (y * WIDTH + x) * 4;
      for (let c = 0; c < 3; c++) sum += Math.abs((a[i + c] ?? 0) - (b[i + c] ?? 0));
    }
  }
  return sum / (region.width * region.height * 3);
}

const noBlink = () => 0.99;

describe("CanvasFace", () => {
  it("draws opaque RGBA frames of its size", () => {
    const frame = new CanvasFace("Ava", "id-1", noBlink).render(0, 0);
    expect(frame.length).toBe(WIDTH * HEIGHT * 4);
    for (let i = 3; i < frame.length; i += 4 * 997) expect(frame[i]).toBe(255);
  });

  it("changes the mouth region far more when the mouth opens than when time passes with it shut", () => {
    const face = new CanvasFace("Ava", "id-1", noBlink);
    const shut = Uint8Array.from(face.render(1000, 0));
    const later = Uint8Array.from(face.render(1066, 0));
    const open = Uint8Array.from(face.render(1066, 1));
    const idle = difference(shut, later, MOUTH_REGION);
    const speaking = difference(later, open, MOUTH_REGION);
    expect(speaking).toBeGreaterThan(10 * Math.max(idle, 0.5));
  });

  it("moves while idle: the head sways over a few seconds", () => {
    const face = new CanvasFace("Ava", "id-1", noBlink);
    const first = Uint8Array.from(face.render(0, 0));
    expect(difference(first, face.render(2500, 0))).toBeGreaterThan(1);
  });

  it("blinks: the eyes close for a moment every few seconds", () => {
    const face = new CanvasFace("Ava", "id-1", () => 0);
    const eyes: Region = { x: 110, y: 80, width: 100, height: 40 };
    const open = Uint8Array.from(face.render(1400, 0));
    // With random() = 0 the first blink starts at 1.5 s and is shut at 80 ms in.
    expect(difference(open, face.render(1580, 0), eyes)).toBeGreaterThan(5);
  });

  it("gives each digital human its own hue", () => {
    expect(hueOf("6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f")).not.toBe(hueOf("0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b"));
    const ava = new CanvasFace("Ava", "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", noBlink).render(0, 0);
    const leo = new CanvasFace("Leo", "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b", noBlink).render(0, 0);
    expect(difference(Uint8Array.from(ava), leo, { x: 0, y: 0, width: 40, height: 40 })).toBeGreaterThan(10);
  });
});
