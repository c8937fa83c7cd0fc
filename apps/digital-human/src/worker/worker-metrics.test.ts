import type { Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerMetrics } from "./worker-metrics.js";
import { reportToWorker } from "./worker-report.js";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function started(jobs = 0) {
  const metrics = new WorkerMetrics(() => jobs);
  const reports = await metrics.receiveReports();
  const served = await metrics.serve(0, "127.0.0.1");
  servers.push(reports.server, served.server);
  const scrape = async () => (await fetch(`http://127.0.0.1:${served.port}/metrics`)).text();
  return { reportsUrl: reports.url, metricsUrl: `http://127.0.0.1:${served.port}`, scrape };
}

describe("the worker's metrics", () => {
  it("count what its job processes report, and show the jobs it runs", async () => {
    const { reportsUrl, scrape } = await started(3);
    expect(await scrape()).toContain('dhs_worker_llm_reply_failures_total{kind="timeout"} 0');
    await reportToWorker({ event: "llm_reply_failed", kind: "timeout" }, reportsUrl);
    await reportToWorker({ event: "llm_reply_failed", kind: "error" }, reportsUrl);
    await reportToWorker({ event: "llm_reply_failed", kind: "error" }, reportsUrl);
    await reportToWorker({ event: "stt_failed" }, reportsUrl);
    await reportToWorker({ event: "tts_fallback", provider: "elevenlabs" }, reportsUrl);
    await reportToWorker({ event: "say", outcome: "spoken" }, reportsUrl);
    await reportToWorker({ event: "say", outcome: "refused" }, reportsUrl);
    const text = await scrape();
    expect(text).toContain('dhs_worker_says_total{outcome="spoken"} 1');
    expect(text).toContain('dhs_worker_says_total{outcome="refused"} 1');
    expect(text).toContain('dhs_worker_says_total{outcome="interrupted"} 0');
    expect(text).toContain('dhs_worker_llm_reply_failures_total{kind="error"} 2');
    expect(text).toContain('dhs_worker_llm_reply_failures_total{kind="timeout"} 1');
    expect(text).toContain("dhs_worker_stt_failures_total 1");
    expect(text).toContain('dhs_worker_tts_fallbacks_total{provider="elevenlabs"} 1');
    expect(text).toContain("dhs_worker_jobs 3");
    expect(text).toContain("dhs_worker_process_cpu_seconds_total");
  });

  it("refuse a report that is not one, and take none on the metrics port", async () => {
    const { reportsUrl, metricsUrl, scrape } = await started();
    const post = (url: string, body: string) => fetch(url, { method: "POST", body }).then((r) => r.status);
    expect(await post(`${reportsUrl}/events`, "not json")).toBe(400);
    expect(await post(`${reportsUrl}/events`, JSON.stringify({ event: "llm_reply_failed", kind: "bored" }))).toBe(400);
    expect(await post(`${reportsUrl}/events`, JSON.stringify({ event: "tts_fallback", provider: "polly" }))).toBe(400);
    expect(await post(`${reportsUrl}/events`, JSON.stringify({ event: "job_ended" }))).toBe(400);
    expect(await post(`${reportsUrl}/events`, JSON.stringify({ event: "say", outcome: "sung" }))).toBe(400);
    expect(await post(`${reportsUrl}/events`, "x".repeat(4096)).catch(() => "reset")).not.toBe(204);
    expect(await post(`${reportsUrl}/other`, "{}")).toBe(404);
    expect(await post(`${metricsUrl}/events`, JSON.stringify({ event: "stt_failed" }))).toBe(404);
    expect((await fetch(`${reportsUrl}/metrics`)).status).toBe(404);
    expect(await scrape()).toContain("dhs_worker_stt_failures_total 0");
  });

  it("are reported without ever failing the job: no address, or a worker that does not answer", async () => {
    await expect(reportToWorker({ event: "stt_failed" }, undefined)).resolves.toBeUndefined();
    await expect(reportToWorker({ event: "stt_failed" }, "http://127.0.0.1:9")).resolves.toBeUndefined();
  });
});
