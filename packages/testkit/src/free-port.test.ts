import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, freePortRun } from "./free-port.js";

describe("freePort", () => {
  it("gives a port that can be listened on", async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
    expect((server.address() as { port: number }).port).toBe(port);
    await new Promise((resolve) => server.close(resolve));
  });
});

describe("freePortRun", () => {
  it("gives a port whose next two can be listened on too", async () => {
    const port = await freePortRun();
    const servers = [port, port + 1, port + 2].map(() => createServer());
    await Promise.all(
      servers.map(
        (server, i) => new Promise<void>((resolve, reject) => server.once("error", reject).listen(port + i, "127.0.0.1", resolve)),
      ),
    );
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });
});
