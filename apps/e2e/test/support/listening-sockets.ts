/**
 * The TCP sockets some processes listen on, read from /proc (Linux): each process's open sockets by
 * inode, matched to the listening entries of /proc/net/tcp and tcp6. No tool beyond the kernel's files.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
}

const LISTEN = "0A";

/** /proc/net/tcp's hexadecimal address: each 32-bit word in the host's (little-endian) byte order. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // The URL parser writes IPv6 in its canonical short form.
  return new URL(`http://[${groups.join(":")}]/`).hostname.slice(1, -1);
}

function listeningByInode(): Map<string, { address: string; port: number }> {
  const byInode = new Map<string, { address: string; port: number }>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== LISTEN) continue;
      const [address = "", port = "0"] = (fields[1] ?? "").split(":");
      byInode.set(fields[9] ?? "", { address: decodeAddress(address), port: Number.parseInt(port, 16) });
    }
  }
  return byInode;
}

export function listeningSockets(pids: readonly number[]): ListeningSocket[] {
  const byInode = listeningByInode();
  const found: ListeningSocket[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone already
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = target.match(/^socket:\[(\d+)\]$/)?.[1];
      const socket = inode === undefined ? undefined : byInode.get(inode);
      if (socket) found.push({ pid, ...socket });
    }
  }
  return found;
}
