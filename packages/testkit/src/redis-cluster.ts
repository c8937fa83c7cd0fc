/**
 * A Redis Cluster of the test run's own on loopback: three masters and a replica for each (redis-server
 * in cluster mode, joined by `redis-cli --cluster create`), nothing kept on disk. Each node needs its port
 * and the port 10000 above it (the cluster bus) free.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { waitForOutput } from "./wait-for-output.js";

export interface RedisCluster {
  /** Seed nodes as REDIS_URL takes them in REDIS_MODE=cluster. */
  url: string;
  ports: number[];
  /** The port of the master serving a hash slot now. */
  masterOfSlot(slot: number): Promise<number>;
  /** SIGKILLs one node, as a crash. */
  killNode(port: number): Promise<void>;
  stop(): Promise<void>;
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let port = 20_000 + Math.floor(Math.random() * 20_000); ports.length < count && port < 55_000; port++) {
    if ((await canListen(port)) && (await canListen(port + 10_000))) ports.push(port);
  }
  if (ports.length < count) throw new Error("no free ports for a Redis Cluster");
  return ports;
}

async function startNode(bin: string, port: number, dir: string): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`];
  // No delay before a replica's first sync (the default waits 5 s for more replicas to share it).
  args.push("--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--dir", dir);
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  await waitForOutput(child, /Ready to accept connections/, { name: `${bin} on ${port}`, timeoutMs: 20_000 });
  return child;
}

export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const bin = process.env.REDIS_SERVER_BIN ?? "redis-server";
  const cli = process.env.REDIS_CLI_BIN ?? "redis-cli";
  const dir = mkdtempSync(join(tmpdir(), "dhs-cluster-"));
  const ports = await clusterPorts(masters * 2);
  const nodes = await Promise.all(ports.map((port) => startNode(bin, port, dir)));
  const stop = async () => {
    await Promise.all(
      nodes.map(async (node) => {
        if (node.exitCode !== null || node.signalCode !== null) return;
        const exited = new Promise((resolve) => node.once("exit", resolve));
        node.kill("SIGKILL");
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await promisify(execFile)(cli, ["--cluster", "create", ...addresses, "--cluster-replicas", "1", "--cluster-yes"], { timeout: 60_000 });
    // `create` returns once slots are assigned; wait until every node agrees the cluster is up, and
    // every replica has its master's data (a replica that never synced refuses to take over).
    for (const port of ports) await waitForClusterOk(cli, port);
    for (const port of ports) await waitForReplicaSynced(cli, port);
  } catch (error) {
    await stop();
    throw error;
  }
  const killNode = async (port: number) => {
    const node = nodes[ports.indexOf(port)];
    if (!node || node.exitCode !== null || node.signalCode !== null) return;
    const exited = new Promise((resolve) => node.once("exit", resolve));
    node.kill("SIGKILL");
    await exited;
  };
  return {
    url: ports.map((port) => `redis://127.0.0.1:${port}`).join(","),
    ports,
    masterOfSlot: (slot) => masterOfSlot(cli, ports, nodes, slot),
    killNode,
    stop,
  };
}

async function waitForReplicaSynced(cli: string, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { stdout } = await promisify(execFile)(cli, ["-p", String(port), "info", "replication"]);
    if (stdout.includes("role:master") || stdout.includes("master_link_status:up")) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster replica ${port} never synced: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitForClusterOk(cli: string, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { stdout } = await promisify(execFile)(cli, ["-p", String(port), "cluster", "info"]);
    if (stdout.includes("cluster_state:ok")) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster node ${port} not ok: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function masterOfSlot(cli: string, ports: number[], nodes: ChildProcess[], slot: number): Promise<number> {
  const alive = ports.find((_port, i) => nodes[i]?.exitCode === null && nodes[i]?.signalCode === null);
  const { stdout } = await promisify(execFile)(cli, ["-p", String(alive), "cluster", "slots"]);
  const lines = stdout.split("\n").map((line) => line.trim());
  // Each range is listed as: first slot, last slot, then the master's address and port, then replicas.
  for (let i = 0; i + 3 < lines.length; i++) {
    const [first, last, ip, port] = lines.slice(i, i + 4);
    if (
      /^\d+$/.test(first ?? "") &&
      /^\d+$/.test(last ?? "") &&
      /^\d+\.\d+\.\d+\.\d+$/.test(ip ?? "") &&
      Number(first) <= slot &&
      slot <= Number(last)
    )
      return Number(port);
  }
  throw new Error(`no master for slot ${slot} in:\n${stdout}`);
}
