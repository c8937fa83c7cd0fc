import type { Harness } from "./harness.js";

/**
 * Resolves once every customer webhook delivery due now was attempted, and those its attempts made due:
 * what a test awaits before it says no more events came, instead of waiting a while to see none.
 */
export async function deliveriesSettled(h: Harness): Promise<void> {
  h.composed.dispatcher.nudge();
  await h.composed.dispatcher.idle();
}
