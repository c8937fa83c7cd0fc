import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { lingerWhenUnread } from "./lingering-close.js";

const BODY = 1 << 20;

// Answers 403 from the headers, its body unread, as the service does for a key without the scope.
function refusingServer(linger: boolean): Promise<Server> {
  const server = createServer((req, res) => {
    if (linger) lingerWhenUnread(req, 5_000);
    res.writeHead(403, { "Content-Type": "application/json", Connection: "close" }).end('{"error":"forbidden"}');
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// A client as fetch is: it writes its body on while the answer arrives, then reads what came.
function uploadAfterAnswer(server: Server): Promise<{ answer: string; error: string | undefined }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let error: string | undefined;
    socket.write(`POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: ${BODY}\r\n\r\n`);
    socket.write(Buffer.alloc(16 * 1024));
    socket.once("data", () => {
      // The answer is here and the server has had its turn to close: the rest of the body now.
      setImmediate(() => socket.end(Buffer.alloc(BODY - 16 * 1024)));
    });
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code;
    });
    socket.on("close", () => resolve({ answer, error }));
  });
}

describe("closing a connection answered before its body arrived", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("lingers: the client writes the rest of its body without a reset and reads the whole answer", async () => {
    server = await refusingServer(true);
    for (let i = 0; i < 5; i++) {
      const { answer, error } = await uploadAfterAnswer(server);
      expect(error).toBeUndefined();
      expect(answer.startsWith("HTTP/1.1 403 Forbidden\r\n"), answer).toBe(true);
      expect(answer).toContain(`{"error":"forbidden"}`);
    }
  });

  it("wraps a keep-alive connection once, whatever the number of its requests", async () => {
    const seen: unknown[] = [];
    server = createServer((req, res) => {
      lingerWhenUnread(req, 5_000);
      seen.push((req.socket as unknown as { destroySoon: unknown }).destroySoon);
      res.end("ok");
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    let answers = "";
    await new Promise<void>((resolve) => {
      socket.on("data", (chunk) => {
        answers += chunk.toString("latin1");
        if (answers.split("HTTP/1.1 200").length - 1 === 3) resolve();
      });
      socket.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3));
    });
    socket.destroy();
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
  });

  it("without it, Node resets the connection under the client's write (the EPIPE Node 24's fetch reported)", async () => {
    server = await refusingServer(false);
    const errors = new Set<string | undefined>();
    for (let i = 0; i < 5; i++) errors.add((await uploadAfterAnswer(server)).error);
    expect([...errors].some((code) => code === "EPIPE" || code === "ECONNRESET")).toBe(true);
  });
});
