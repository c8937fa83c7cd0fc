/**
 * The backend teams' tool example (docs/backend.md, "Tools"), run as written against `pnpm demo`
 * (readme-example.ts): registered as a webhook endpoint, given to a digital human as its order_status
 * tool, and called through the test helper as the digital human would call it, for the customer whose
 * order it is and for another one.
 */
import { freePort } from "@dhs/testkit";
import type { DocFile } from "./readme-blocks.js";
import { apiOf, exampleUnder, startExample, TEST_KEY } from "./readme-example.js";

export async function checkToolExample(
  docs: readonly DocFile[],
  root: string,
  apiUrl: string,
): Promise<{ own: Record<string, any>; another: Record<string, any> }> {
  const call = apiOf(apiUrl);
  const port = await freePort();
  const endpoint = await call("POST", "/v1/webhook-endpoints", { url: `http://localhost:${port}/dhs-tools` });
  const made: { dh?: string } = {};
  try {
    const example = await startExample(exampleUnder(docs, "\n## Tools: a digital human that acts"), root, port, {
      DHS_URL: apiUrl,
      DHS_API_KEY: TEST_KEY,
      DHS_WEBHOOK_SECRET: endpoint.secret,
    });
    try {
      const dh = await call("POST", "/v1/digital-humans", {
        name: "Maya",
        tools: [
          {
            type: "webhook",
            name: "order_status",
            description: "Looks up an order by its id.",
            parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
            endpoint_id: endpoint.id,
          },
        ],
      });
      made.dh = dh.id;
      const toolCall = async (participant: string) => {
        const session = await call("POST", "/v1/sessions", { digital_human_id: dh.id, participant_identity: participant });
        const answer = await call("POST", `/v1/test-helpers/sessions/${session.id}/tool-calls`, {
          name: "order_status",
          arguments: { order_id: "a-1042" },
        });
        await call("POST", `/v1/sessions/${session.id}/end`);
        return answer;
      };
      return { own: await toolCall("ada"), another: await toolCall("mallory") };
    } finally {
      example.stop();
    }
  } finally {
    if (made.dh) await call("DELETE", `/v1/digital-humans/${made.dh}`).catch(() => undefined);
    await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
  }
}
