/**
 * A local stand-in for LiveKit's RoomService (Twirp CreateRoom, DeleteRoom, SendData, ...), in a process of
 * its own so it does not share the load generator's event loop. It answers at once: the benchmark measures
 * the service, not LiveKit. It counts the calls by method, so the bench can tell how many LiveKit calls a
 * request made (a say's nudge, and any nudge again the service's timer sends), at GET /bench/calls.
 */
import { createServer } from "node:http";

const calls: Record<string, number> = {};

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/bench/calls") {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(calls));
    return;
  }
  const method = req.url?.split("/").at(-1) ?? "?";
  calls[method] = (calls[method] ?? 0) + 1;
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const name = body ? (JSON.parse(body) as { name?: string }).name : undefined;
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ sid: "RM_bench", name }));
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
