/**
 * The backend teams' "Bring your own brain" example (docs/backend.md), run as written against `pnpm demo`
 * (readme-example.ts), given a webhook endpoint of its own and sent a participant's turn by the test
 * helpers; the utterance it queues with `say` must be its answer.
 */
import { freePort, until } from "@dhs/testkit";
import type { DocFile } from "./readme-blocks.js";
import { apiOf, exampleUnder, startExample, TEST_KEY } from "./readme-example.js";

export async function checkBrainExample(docs: readonly DocFile[], root: string, apiUrl: string): Promise<{ answer: string }> {
  const call = apiOf(apiUrl);
  const port = await freePort();
  const endpoint = await call("POST", "/v1/webhook-endpoints", {
    url: `http://localhost:${port}/dhs-turns`,
    event_types: ["session.participant_turn"],
  });
  const brain = await startExample(exampleUnder(docs, "\n## Bring your own brain"), root, port, {
    DHS_URL: apiUrl,
    DHS_API_KEY: TEST_KEY,
    DHS_WEBHOOK_SECRET: endpoint.secret,
  }).catch(async (error) => {
    await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
    throw error;
  });
  try {
    const session = await call("POST", "/v1/sessions", {});
    await call("POST", `/v1/test-helpers/sessions/${session.id}/events`, { type: "participant_turn", text: "Where is my order?" });
    // What the example queued: an interruption drops it and names it (the demo's test session has nobody to say it to).
    const dropped = await until(
      async () => {
        const { utterance_ids } = await call("POST", `/v1/sessions/${session.id}/interrupt`);
        return utterance_ids.length > 0 ? (utterance_ids as string[]) : undefined;
      },
      { what: `the example's say (its output: ${brain.output()})`, timeoutMs: 20_000 },
    );
    const utterance = await call("GET", `/v1/sessions/${session.id}/say/${dropped[0]}`);
    await call("POST", `/v1/sessions/${session.id}/end`);
    return { answer: utterance.text };
  } finally {
    brain.stop();
    await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
  }
}
