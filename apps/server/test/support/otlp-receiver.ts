/**
 * An OTLP/HTTP trace receiver on loopback, standing in for a collector: it keeps every export request as
 * it came (content type and body) and reads OTLP's JSON encoding into spans. Protobuf bodies are kept
 * raw.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** The resource's service.name. */
  service: string;
}

export interface ExportRequest {
  contentType: string;
  body: Buffer;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

const plain = (value: AnyValue): string | number | boolean =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ""));

const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

export class OtlpReceiver {
  readonly requests: ExportRequest[] = [];
  private server: Server | undefined;

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo | undefined)?.port ?? 0}`;
  }

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const contentType = String(req.headers["content-type"] ?? "");
      if (req.method === "POST" && req.url === "/v1/traces") this.requests.push({ contentType, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse, in the encoding asked in.
      res.writeHead(200, { "content-type": contentType.includes("json") ? "application/json" : "application/x-protobuf" });
      res.end(contentType.includes("json") ? "{}" : "");
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Every span of the JSON exports so far. */
  spans(): ReceivedSpan[] {
    return this.requests
      .filter((request) => request.contentType.includes("json"))
      .flatMap((request) => {
        const body = JSON.parse(request.body.toString("utf8")) as {
          resourceSpans?: {
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: {
              spans?: {
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                kind: number;
                attributes?: KeyValue[];
                links?: { traceId: string; spanId: string }[];
              }[];
            }[];
          }[];
        };
        return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
          const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
          return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
            (scope.spans ?? []).map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
              service,
            })),
          );
        });
      });
  }
}
