import { connect, createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { TcpGate } from "./tcp-gate.js";

const echo = createServer((socket) => socket.pipe(socket));
afterAll(() => echo.close());

function roundTrip(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end("ping"));
    let got = "";
    socket.on("data", (chunk) => (got += chunk));
    socket.on("end", () => resolve(got));
    socket.on("error", reject);
  });
}

describe("TcpGate", () => {
  it("forwards while open, refuses and resets while closed, and opens again on the same port", async () => {
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", () => resolve()));
    const gate = await new TcpGate({ host: "127.0.0.1", port: (echo.address() as { port: number }).port }).open();
    const port = gate.port;
    expect(await roundTrip(port)).toBe("ping");
    await gate.close();
    await expect(roundTrip(port)).rejects.toThrow(/ECONNREFUSED/);
    await gate.open();
    expect(gate.port).toBe(port);
    expect(await roundTrip(port)).toBe("ping");
    await gate.close();
  });
});
