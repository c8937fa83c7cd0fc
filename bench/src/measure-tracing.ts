/**
 * Create and get on a new service process each (the same settings and Redis as the main one), with
 * tracing off, then on (OTLP http/protobuf to a collector stand-in in this process that answers 200 and
 * counts) sampling every trace, then one in ten.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { freePort } from "@dhs/testkit";
import { bothOps, type Measured } from "./load.js";
import { type Stack, startService } from "./stack.js";

export interface TracingFigures {
  rows: { label: string; create: Measured; get: Measured }[];
  exports: { requests: number; bytes: number };
}

export async function measureTracing(stack: Stack, sessionIds: readonly string[], settle: () => Promise<void>): Promise<TracingFigures> {
  const exports = { requests: 0, bytes: 0 };
  const collector = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      exports.bytes += chunk.length;
    });
    req.on("end", () => {
      exports.requests++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const configs: [string, Record<string, string>][] = [
    ["off", {}],
    ["on, every trace sampled", { OTEL_TRACES_SAMPLER: "parentbased_always_on" }],
    ["on, 10% sampled", { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }],
  ];
  const rows: TracingFigures["rows"] = [];
  for (const [label, sampling] of configs) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const otel =
      label === "off" ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", ...sampling };
    const env = { ...stack.service.env, PORT: String(port), ...otel };
    const child = await startService(stack.service.args, env, join(stack.service.dir, `service-tracing-${rows.length}.log`), url);
    process.stdout.write(`bench: tracing ${label}\n`);
    const measured = await bothOps(url, sessionIds, { pid: child.pid as number, nodes: stack.nodes, settle });
    rows.push({ label, ...measured });
    await new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  }
  await new Promise((resolve) => collector.close(resolve));
  return { rows, exports };
}
