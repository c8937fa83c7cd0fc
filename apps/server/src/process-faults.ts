/**
 * What the process does with an error nobody handled (an `uncaughtException`, or a promise rejected with
 * no handler, which Node raises as one): after it the process's state is unknown, so it does not go on,
 * and it must not vanish either, mid-request, with nothing said. It logs the error once at `fatal` with
 * its origin, counts it, stops in order as on SIGTERM (no new connections, the requests in flight
 * finished within the grace) and exits 1, so the orchestrator restarts it and the restart is visible. A
 * second fault while it stops, or a stop that overruns, ends it at once.
 */

export interface FaultPolicy {
  log(error: unknown, origin: string): void;
  count(origin: string): void;
  /** The orderly stop (serve.ts's shutdown); its promise settles once everything is closed. */
  stop(): Promise<void>;
  exit(code: number): void;
  /** How long the stop may take before the process exits anyway (ms). */
  graceMs: number;
}

type FaultSource = Pick<NodeJS.Process, "on">;

export function exitOnUncaughtErrors(target: FaultSource, policy: FaultPolicy): void {
  let stopping = false;
  target.on("uncaughtException", (error: unknown, origin: string) => {
    policy.log(error, origin);
    policy.count(origin);
    if (stopping) return policy.exit(1);
    stopping = true;
    const overrun = setTimeout(() => policy.exit(1), policy.graceMs);
    overrun.unref();
    policy.stop().then(
      () => policy.exit(1),
      () => policy.exit(1),
    );
  });
}
