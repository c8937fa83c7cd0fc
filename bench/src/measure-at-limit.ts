/** Creates of an account at its limit of open sessions: every one answered 429 concurrency_limit_exceeded. */
import { type Measured, measure } from "./load.js";
import { CAPPED_KEY, DURATION_S, WARMUP_S } from "./settings.js";
import type { Stack } from "./stack.js";

export async function measureAtLimit(stack: Stack): Promise<Measured> {
  await measure(stack.serverUrl, "create", [], WARMUP_S, { key: CAPPED_KEY });
  return measure(stack.serverUrl, "create", [], DURATION_S, { key: CAPPED_KEY, pid: stack.servicePid, nodes: stack.nodes });
}
