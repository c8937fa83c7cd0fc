/**
 * The backend teams' lead-capture example (docs/backend.md, "Analysis"), run as written against `pnpm
 * demo` (readme-example.ts): it makes its digital human and webhook endpoint, holds a test session, sets
 * its analysis, and prints the lead its endpoint received, verified; what it made is deleted afterwards.
 */
import { freePort, until } from "@dhs/testkit";
import type { DocFile } from "./readme-blocks.js";
import { apiOf, exampleUnder, startExample, TEST_KEY } from "./readme-example.js";

export async function checkAnalysisExample(
  docs: readonly DocFile[],
  root: string,
  apiUrl: string,
): Promise<{ lead: Record<string, unknown>; status: string | undefined }> {
  const call = apiOf(apiUrl);
  const port = await freePort();
  const example = await startExample(exampleUnder(docs, "\n## Analysis: what each session came to"), root, port, {
    DHS_URL: apiUrl,
    DHS_API_KEY: TEST_KEY,
  });
  try {
    const line = await until(() => example.output().match(/^lead (.*)$/m)?.[1], {
      what: `the lead at the example's endpoint (${example.output()})`,
      timeoutMs: 20_000,
    });
    const status = await until(() => example.output().match(/^analysis (\w+)$/m)?.[1], { what: "the analysis read" });
    return { lead: JSON.parse(line) as Record<string, unknown>, status };
  } finally {
    example.stop();
    const endpoints = await call("GET", "/v1/webhook-endpoints");
    for (const endpoint of endpoints.data.filter((e: { url: string }) => e.url.includes(`:${port}/`))) {
      await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
    }
    const own = await call("GET", "/v1/digital-humans?kind=custom&limit=100");
    for (const dh of own.data.filter((d: { name: string }) => d.name === "Lena")) {
      await call("DELETE", `/v1/digital-humans/${dh.id}`).catch(() => undefined);
    }
  }
}
