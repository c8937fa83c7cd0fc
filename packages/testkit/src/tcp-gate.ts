/**
 * A TCP forwarder a test can close and open again: what a dependency going down looks like from the
 * service (its connections reset, new ones refused), without stopping the shared server behind it.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export class TcpGate {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens on a free loopback port (the same one again after a close). */
  async open(): Promise<this> {
    // Half-open both ways, so each side's end passes through as it would without the gate.
    const server = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = createConnection({ ...this.target, allowHalfOpen: true });
      for (const [socket, other] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => other.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
    return this;
  }

  /** Resets every connection through it and refuses new ones until opened again. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
