import { createServer } from "node:net";

/** A TCP port free on loopback right now (the OS picks it; a race with other processes is possible). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A free port whose next two are free too, for LiveKit (its signalling port, then its TCP and UDP media
 * ports). Picked by the OS, not at random: a random port in the ephemeral range can be any process's
 * outgoing connection (pnpm demo's "port 39346 (LiveKit) is in use" in a fresh clone's e2e run).
 */
export async function freePortRun(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 65_000) continue;
    const rest = await Promise.all([port + 1, port + 2].map(isFree));
    if (rest.every(Boolean)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
