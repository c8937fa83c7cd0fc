/**
 * What the agent asks of a face: one RGBA frame for a moment and a mouth opening. A team that brings an
 * avatar vendor's video implements this (or replaces the video loop in agent.ts) and nothing else changes.
 */
export interface FaceRenderer {
  readonly width: number;
  readonly height: number;
  /**
   * The face at `timeMs` since the session's video started, with the mouth open by `mouthOpen` (0 shut,
   * 1 wide open). The returned buffer may be reused by the next call.
   */
  render(timeMs: number, mouthOpen: number): Uint8Array;
}

/** A box in frame pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}
