/**
 * A customer's webhook receiver, as a test would write one: an HTTP server on loopback that verifies
 * every delivery with the `standardwebhooks` library on its own (never the service's code) against the
 * secrets it is given, keeps what it got, and answers as the test says (a status, Retry-After, a hang, or
 * being down). A test that verifies in its own way (with @dhs/client's verifyWebhook) does it in `answer`,
 * from the raw body and headers. Under load (the bench) `keepBodies: false` keeps only each delivery's
 * id, arrival and answer, so that the receiver's process spends next to nothing on it.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  timestamp: number;
  signature: string;
  /** The event's type ("" when bodies are not kept). */
  type: string;
  /** The parsed body ({} when bodies are not kept). */
  body: Record<string, any>;
  /** The body as sent ("" when bodies are not kept). */
  raw: string;
  headers: IncomingHttpHeaders;
  /** Which of the receiver's secrets verified it (index), or -1 when none did (or bodies are not kept). */
  verifiedWith: number;
  /** When the whole delivery had arrived (Date.now()). */
  at: number;
  /** What the receiver answered (0: it hung or closed the connection). */
  status: number;
  /** The W3C traceparent header the delivery carried, if any. */
  traceparent: string | undefined;
}

/**
 * How the receiver answers: a status (with headers, a body: a webhook tool's `{"result": ...}`, and a
 * delay before it, as a slow endpoint would), a hang, or a closed connection.
 */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | "hang" | "close";

export interface WebhookReceiverOptions {
  /** Secrets to verify with, the customer's copy (also settable later: `receiver.secrets`). */
  secrets?: string[];
  /** How to answer each delivery (200 by default; also settable later: `receiver.answer`). */
  answer?: (delivery: Received) => Answer;
  /** false: neither read, parse nor verify bodies; keep the headers, the arrival and the answer only. */
  keepBodies?: boolean;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Secrets to verify with, the customer's copy. */
  secrets: string[];
  /** How to answer each delivery (200 by default). */
  answer: (delivery: Received) => Answer;
  private readonly keepBodies: boolean;
  private server: Server | undefined;
  private port = 0;
  private readonly hanging = new Set<ServerResponse>();

  constructor(options: WebhookReceiverOptions = {}) {
    this.secrets = options.secrets ?? [];
    this.answer = options.answer ?? (() => ({ status: 200 }));
    this.keepBodies = options.keepBodies ?? true;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening (the port is then refused) until started again on the same port. */
  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  async restart(): Promise<void> {
    await this.start(this.port);
  }

  /** Deliveries of one event type (or every type). */
  of(type?: string): Received[] {
    return this.received.filter((r) => type === undefined || r.type === type);
  }

  /** Deliveries of one event type that the receiver acknowledged (2xx). */
  acknowledged(type?: string): Received[] {
    return this.of(type).filter((r) => r.status >= 200 && r.status < 300);
  }

  /** Deliveries whose webhook-id had arrived before (at-least-once delivery sent it again). */
  duplicates(): number {
    return this.received.length - new Set(this.received.map((r) => r.id)).size;
  }

  private async read(req: IncomingMessage): Promise<string> {
    if (!this.keepBodies) {
      req.resume();
      await new Promise((resolve) => req.once("end", resolve));
      return "";
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  private verify(raw: string, headers: Record<string, string>): number {
    return this.secrets.findIndex((secret) => {
      try {
        new Webhook(secret).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await this.read(req);
    const headers = {
      "webhook-id": String(req.headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
    };
    const body = this.keepBodies ? (JSON.parse(raw) as Record<string, any>) : {};
    const delivery: Received = {
      id: headers["webhook-id"],
      timestamp: Number(headers["webhook-timestamp"]),
      signature: headers["webhook-signature"],
      type: this.keepBodies ? (body.type as string) : "",
      body,
      raw,
      headers: req.headers,
      verifiedWith: this.keepBodies ? this.verify(raw, headers) : -1,
      at: Date.now(),
      status: 0,
      traceparent: req.headers.traceparent as string | undefined,
    };
    this.received.push(delivery);
    const answer = this.answer(delivery);
    if (typeof answer === "object") delivery.status = answer.status;
    if (answer === "hang") {
      this.hanging.add(res);
      return;
    }
    if (answer === "close") {
      res.destroy();
      return;
    }
    if (answer.delayMs) {
      this.hanging.add(res);
      await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      this.hanging.delete(res);
      if (res.destroyed) return;
    }
    const type = answer.body === undefined ? {} : { "content-type": "application/json" };
    res.writeHead(answer.status, { ...type, ...answer.headers });
    res.end(answer.body);
  }
}
