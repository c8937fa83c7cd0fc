/**
 * Steady load for fault tests: `concurrency` loops, each sending one request after the other, every
 * answer (or failure) recorded with when it was sent and when it ended, so a test can look at what
 * happened inside any window (an outage, a shutdown) after the fact.
 */
import { performance } from "node:perf_hooks";

export interface Sample {
  /** performance.now() when the request was sent and when its answer (or failure) ended. */
  sentAt: number;
  endedAt: number;
  status: number | undefined;
  /** Set when no answer came: the connection failed or the client timeout fired. */
  failure?: string;
  headers?: Headers;
  body?: any;
  /** What the loop sent (e.g. the Idempotency-Key), for following a request up later. */
  tag: string;
}

export interface Load {
  samples: Sample[];
  /** Requests sent and not ended yet. */
  inFlight(): number;
  stop(): Promise<Sample[]>;
}

export function startLoad(
  send: (tag: string, signal: AbortSignal) => Promise<Response>,
  options: { concurrency: number; timeoutMs: number },
): Load {
  const samples: Sample[] = [];
  let open = 0;
  let running = true;
  let counter = 0;
  const loop = async () => {
    while (running) {
      const tag = `${process.pid}-${++counter}-${crypto.randomUUID()}`;
      const sentAt = performance.now();
      open++;
      try {
        const res = await send(tag, AbortSignal.timeout(options.timeoutMs));
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text, and the test says what it expected
        }
        samples.push({ sentAt, endedAt: performance.now(), status: res.status, headers: res.headers, body, tag });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        samples.push({ sentAt, endedAt: performance.now(), status: undefined, failure: cause ?? (error as Error).name, tag });
        // A refused connection fails at once; do not spin while nothing listens.
        await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        open--;
      }
    }
  };
  const loops = Array.from({ length: options.concurrency }, loop);
  return {
    samples,
    inFlight: () => open,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}
