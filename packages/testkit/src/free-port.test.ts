import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";

describe("freePort", () => {
  it("gives a port that can be listened on", async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
    expect((server.address() as { port: number }).port).toBe(port);
    await new Promise((resolve) => server.close(resolve));
  });
});
