/**
 * Closes a connection answered before its request's body arrived (a 401, 403 or 413 decided from the
 * headers, which errorAnswer marks `Connection: close`) the way Apache and nginx do, lingering: the answer
 * is written, the write side ends, and what the client still sends is read and dropped for a short while
 * before the socket is destroyed. Node destroys it as soon as the answer is written; a socket closed with
 * the client's bytes unread is reset, and a client still sending its body then fails its write (EPIPE)
 * or loses the answer it was already sent: Node 24's fetch reported a 403 as `EPIPE`. The wait is
 * bounded, so a client trickling a body cannot stretch it: it ends when the client closes its side, or
 * after `lingerMs`.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** Long enough for a client to finish a write in flight and read the answer; nginx waits 5 s at most. */
export const LINGER_MS = 2000;

/** Each connection's latest request: the one whose answer Node closes the connection after. */
const latest = new WeakMap<Socket, IncomingMessage>();

/**
 * Makes `req`'s connection linger when Node closes it with the body still arriving. Called for every
 * request: a request read whole closes as Node closes it, at once. The connection's destroySoon is
 * wrapped once, with its first request; later requests on a keep-alive connection only become the one
 * it looks at, so a long-lived connection does not grow a chain of wrappers.
 */
export function lingerWhenUnread(req: IncomingMessage, lingerMs: number = LINGER_MS): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  const wrapped = latest.has(socket);
  latest.set(socket, req);
  const original = socket.destroySoon;
  if (wrapped || typeof original !== "function") return;
  // Node calls destroySoon once the last answer on the connection is written.
  socket.destroySoon = function destroySoon(this: Socket) {
    if (latest.get(this)?.complete !== false) return original.call(this);
    linger(this, lingerMs);
  };
}

function linger(socket: Socket, lingerMs: number): void {
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // The client closed its side: it has read the answer, nothing more is coming.
  socket.once("end", () => socket.destroy());
  // The answer goes out, then the FIN; what still arrives goes to Node's parser, which drops the body.
  socket.end();
}
