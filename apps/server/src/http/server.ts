/**
 * Starts and stops the HTTP server. Tests start it on port 0 in-process; main.ts on the configured port.
 * Stopping stops accepting, lets in-flight requests finish within the grace period, then closes what is
 * left.
 */
import { type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { answerClientError } from "./client-error.js";

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  stop(graceMs?: number): Promise<void>;
}

export async function startWebServer(app: Express, port: number, host: string): Promise<RunningServer> {
  const server = createServer(app);
  server.on("clientError", answerClientError);
  // Responses not yet finished: on stop they are told to close their connection.
  const open = new Set<ServerResponse>();
  server.on("request", (_req, res: ServerResponse) => {
    open.add(res);
    res.once("close", () => open.delete(res));
  });
  // Keep-alive sockets longer than a typical load balancer's idle timeout, so it never reuses one we closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
