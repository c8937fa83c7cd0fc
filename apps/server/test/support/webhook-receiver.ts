/**
 * A customer's webhook receiver, as a test would write one: an HTTP server on loopback that verifies
 * every delivery with the `standardwebhooks` library on its own (never the service's code), keeps what
 * it got, and answers as the test says (a status, Retry-After, a hang, or being down).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  timestamp: number;
  signature: string;
  type: string;
  body: Record<string, any>;
  raw: string;
  /** Which of the receiver's secrets verified it (index), or -1 when none did. */
  verifiedWith: number;
  at: number;
  /** What the receiver answered (0: it hung or closed the connection). */
  status: number;
  /** The W3C traceparent header the delivery carried, if any. */
  traceparent: string | undefined;
}

export type Answer = { status: number; headers?: Record<string, string> } | "hang" | "close";

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Secrets to verify with, the customer's copy. */
  secrets: string[] = [];
  /** How to answer each delivery (200 by default). */
  answer: (delivery: Received) => Answer = () => ({ status: 200 });
  private server: Server | undefined;
  private port = 0;
  private readonly hanging = new Set<ServerResponse>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const headers = {
      "webhook-id": String(req.headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
    };
    const verifiedWith = this.secrets.findIndex((secret) => {
      try {
        new Webhook(secret).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
    const body = JSON.parse(raw) as Record<string, any>;
    const delivery: Received = {
      id: headers["webhook-id"],
      timestamp: Number(headers["webhook-timestamp"]),
      signature: headers["webhook-signature"],
      type: body.type as string,
      body,
      raw,
      verifiedWith,
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
    res.writeHead(answer.status, answer.headers ?? {});
    res.end();
  }
}
