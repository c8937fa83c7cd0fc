/**
 * The worker's Prometheus metrics (prom-client): the jobs it runs, the replies the LLM failed (refused,
 * broken midway, or timed out: each one the participant heard an apology for), the turns the recognizer
 * failed on, the provider voices the offline voice stood in for, the utterances of the backends' `say` by
 * how they went, and Node's own process metrics.
 * Served as text at GET /metrics on a port of its own (AGENT_METRICS_PORT), apart from the framework's
 * health endpoint.
 *
 * Jobs run in processes the framework starts, so they report what they count to the worker's main
 * process over loopback HTTP (worker-report.ts), as they reach its voice server:
 *
 *   POST /events  {"event": "llm_reply_failed", "kind": "timeout"}  ->  204
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { isWorkerEvent, type WorkerEvent } from "./worker-report.js";

export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly replyFailures = new Counter({
    name: "dhs_worker_llm_reply_failures_total",
    help: "Replies of the LLM that failed and were apologized for, by kind (error: refused or broken midway; timeout: no token for DHS_LLM_TIMEOUT_S).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  private readonly sttFailures = new Counter({
    name: "dhs_worker_stt_failures_total",
    help: "Turns of a participant the speech recognizer failed on (answered as turns with no words heard).",
    registers: [this.registry],
  });
  private readonly ttsFallbacks = new Counter({
    name: "dhs_worker_tts_fallbacks_total",
    help: "Times a provider's voice failed mid-reply (refused, timed out, broke off) and the offline voice spoke the rest, by provider.",
    labelNames: ["provider"] as const,
    registers: [this.registry],
  });
  private readonly says = new Counter({
    name: "dhs_worker_says_total",
    help: "Utterances of a backend's say the jobs took, by outcome (spoken; interrupted: cut or dropped once started; refused: the service did not let it start).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  constructor(jobsRunning: () => number) {
    new Gauge({
      name: "dhs_worker_jobs",
      help: "Jobs (sessions' digital humans) the worker runs now.",
      registers: [this.registry],
      collect() {
        this.set(jobsRunning());
      },
    });
    // Zero before the first failure, so a rate is defined from the start.
    for (const kind of ["error", "timeout"]) this.replyFailures.inc({ kind }, 0);
    for (const outcome of ["spoken", "interrupted", "refused"]) this.says.inc({ outcome }, 0);
    collectDefaultMetrics({ register: this.registry, prefix: "dhs_worker_" });
  }

  count(event: WorkerEvent): void {
    if (event.event === "llm_reply_failed") this.replyFailures.inc({ kind: event.kind });
    else if (event.event === "say") this.says.inc({ outcome: event.outcome });
    else if (event.event === "tts_fallback") this.ttsFallbacks.inc({ provider: event.provider });
    else this.sttFailures.inc();
  }

  /** GET /metrics on `port` (0: any free one); resolves with the port it listens on. */
  async serve(port: number, host: string): Promise<{ port: number; server: Server }> {
    const server = createServer((req, res) => {
      if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") return void res.writeHead(404).end("not found\n");
      this.registry.metrics().then(
        (text) => res.writeHead(200, { "Content-Type": this.registry.contentType }).end(text),
        () => res.writeHead(500).end("metrics unavailable\n"),
      );
    });
    return { port: await listen(server, port, host), server };
  }

  /** The loopback endpoint its job processes report to; resolves with its address (DHS_WORKER_REPORT_URL). */
  async receiveReports(): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => this.report(req, res));
    const port = await listen(server, 0, "127.0.0.1");
    return { url: `http://127.0.0.1:${port}`, server };
  }

  private report(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== "POST" || req.url !== "/events") return void res.writeHead(404).end();
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
      if (raw.length > 1024) req.destroy();
    });
    req.on("end", () => {
      let event: unknown;
      try {
        event = JSON.parse(raw);
      } catch {
        // answered below
      }
      if (!isWorkerEvent(event)) return void res.writeHead(400).end();
      this.count(event);
      res.writeHead(204).end();
    });
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}
