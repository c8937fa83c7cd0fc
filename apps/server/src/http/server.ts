/**
 * Starts and stops the HTTP server. Tests start it on port 0 in-process; main.ts on the configured port.
 * Stopping stops accepting, lets in-flight requests finish within the grace period, then closes what is
 * left.
 *
 * Slow and idle clients are bounded, so they cannot hold the process's connections (and file
 * descriptors) for Node's default five minutes: headers must arrive within headersTimeoutMs and the whole
 * request within requestTimeoutMs, else the answer is 408 and the connection closes; an idle keep-alive
 * connection closes after 65 s; beyond maxConnections a new connection is closed at
 * accept, before it costs more than the accept. A connection answered before its body arrived closes
 * lingering (lingering-close.ts), so the client reads the answer rather than a reset.
 */
import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerClientError, answerUnmetExpectation } from "./client-error.js";
import { lingerWhenUnread } from "./lingering-close.js";

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  /** Called for each connection closed at accept because maxConnections were open. */
  onDrop?: () => void;
}

// Keep-alive sockets longer than a typical load balancer's idle timeout, so it never reuses one we closed.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  stop(graceMs?: number): Promise<void>;
}

export async function startWebServer(
  handler: RequestListener,
  port: number,
  host: string,
  limits: ConnectionLimits,
): Promise<RunningServer> {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the two timeouts every 30 s by default, which would let a slow client run over them by as much.
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 2),
    },
    handler,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = limits.maxConnections;
  if (limits.onDrop) server.on("drop", limits.onDrop);
  server.on("clientError", answerClientError);
  server.on("checkExpectation", answerUnmetExpectation);
  // Responses not yet finished: on stop they are told to close their connection.
  const open = new Set<ServerResponse>();
  server.on("request", (req, res: ServerResponse) => {
    lingerWhenUnread(req);
    open.add(res);
    res.once("close", () => open.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    port: address.port,
    url: `http://${shownHost === "0.0.0.0" || shownHost === "[::]" ? "127.0.0.1" : shownHost}:${address.port}`,
    stop: (graceMs = 10_000) => stopWebServer(server, open, graceMs),
  };
}

function stopWebServer(server: Server, unfinished: ReadonlySet<ServerResponse>, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close((error) => {
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
    // Idle keep-alive sockets hold no request; close them now so close() is not held up by them.
    server.closeIdleConnections();
    // A connection whose request is still running would stay open for keep-alive once it is answered,
    // holding close() until the grace period ends: answer it with Connection: close instead.
    for (const res of unfinished) {
      if (!res.headersSent) res.setHeader("Connection", "close");
      res.once("finish", () => server.closeIdleConnections());
    }
  });
}
