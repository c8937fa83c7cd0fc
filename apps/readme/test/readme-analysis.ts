/**
 * The backend teams' lead-capture example (docs/backend.md, "Analysis"), run as written against `pnpm
 * demo` (readme-example.ts): it makes its digital human and webhook endpoint, holds a test session, ends
 * it, sets its analysis with the test helper, and prints the lead its endpoint received once verified.
 * What the example printed is checked against the service: the endpoint's delivery log must show the
 * session.analysis_ready event answered 2xx (the handler answers only after verifyWebhook), and the
 * session's analysis must hold the data the lead carries; a forged delivery must be refused. What it made
 * is deleted afterwards.
 */
import { createHmac } from "node:crypto";
import { freePort, until } from "@dhs/testkit";
import type { DocFile } from "./readme-blocks.js";
import { apiOf, exampleUnder, startExample, TEST_KEY } from "./readme-example.js";

export interface AnalysisExampleRun {
  /** The lead the example's handler printed, from the verified session.analysis_ready event. */
  lead: Record<string, unknown>;
  /** The status the example read with getSessionAnalysis. */
  read: string | undefined;
  /** The session's analysis as the service answers it (getSessionAnalysis with the test key). */
  analysis: Record<string, any>;
  /** The example's endpoint's delivery attempts of session.analysis_ready. */
  deliveries: Record<string, any>[];
  /** A forged session.analysis_ready posted to the example's handler: its answer's status, and the leads printed after it. */
  forged: { status: number; leads: number };
}

export async function checkAnalysisExample(docs: readonly DocFile[], root: string, apiUrl: string): Promise<AnalysisExampleRun> {
  const call = apiOf(apiUrl);
  const port = await freePort();
  const ownEndpoints = async () =>
    (await call("GET", "/v1/webhook-endpoints")).data.filter((e: { url: string }) => e.url.includes(`:${port}/`));
  const example = await startExample(exampleUnder(docs, "\n## Analysis: what each session came to"), root, port, {
    DHS_URL: apiUrl,
    DHS_API_KEY: TEST_KEY,
  });
  try {
    const line = await until(() => example.output().match(/^lead (.*)$/m)?.[1], {
      what: "the lead at the example's endpoint",
      timeoutMs: 20_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the example printed:\n${example.output()}`);
    });
    const read = await until(() => example.output().match(/^analysis (\w+)$/m)?.[1], { what: "the analysis read" });
    const lead = JSON.parse(line) as Record<string, unknown>;
    const analysis = await call("GET", `/v1/sessions/${String(lead.session_id)}/analysis`);
    const [endpoint] = await ownEndpoints();
    if (!endpoint) throw new Error(`the example registered no endpoint on port ${port}`);
    // The attempt is logged once the handler has answered: wait for it.
    const deliveries = await until(
      async () => {
        const page = await call("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=100`);
        const ready = page.data.filter((d: { event_type: string }) => d.event_type === "session.analysis_ready");
        return ready.length > 0 ? (ready as Record<string, any>[]) : undefined;
      },
      { what: "the session.analysis_ready delivery in the endpoint's log" },
    );
    // The same delivery with another lead, signed with a secret that is not the endpoint's: refused, nothing stored.
    const body = JSON.stringify({
      type: "session.analysis_ready",
      mode: "test",
      timestamp: new Date().toISOString(),
      data: { ...analysis, data: { name: "Mallory", email: "mallory@example.com", request: "Everything, free" } },
    });
    const forgery = await fetch(`http://localhost:${port}/dhs-events`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": `v1,${createHmac("sha256", "not-the-secret").update(body).digest("base64")}`,
      },
      body,
    });
    const forged = { status: forgery.status, leads: example.output().match(/^lead /gm)?.length ?? 0 };
    return { lead, read, analysis, deliveries, forged };
  } finally {
    example.stop();
    for (const endpoint of await ownEndpoints()) await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
    const own = await call("GET", "/v1/digital-humans?kind=custom&limit=100");
    for (const dh of own.data.filter((d: { name: string }) => d.name === "Lena")) {
      await call("DELETE", `/v1/digital-humans/${dh.id}`).catch(() => undefined);
    }
  }
}
