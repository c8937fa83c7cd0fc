/**
 * A local stand-in for LiveKit's RoomService (Twirp CreateRoom and DeleteRoom), in a process of its own so
 * it does not share the load generator's event loop. It answers at once: the benchmark measures the
 * service, not LiveKit.
 */
import { createServer } from "node:http";

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const name = body ? (JSON.parse(body) as { name?: string }).name : undefined;
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ sid: "RM_bench", name }));
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
