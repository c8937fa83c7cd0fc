/**
 * Which jobs this worker takes, and the load it reports to LiveKit. LiveKit sends a job to an available
 * worker, weighted by how little load it reports, and tries the next worker when one refuses; once a
 * worker accepts, LiveKit counts the job as running. So a worker must refuse what it cannot start now,
 * not accept it and let it time out: a refused job goes to another worker, or fails at once and the
 * service dispatches it again a few seconds later (docs/digital-human.md, "Capacity").
 *
 * A job can start when (1) the worker runs fewer than `maxJobs`, (2) no other accepted job is still
 * waiting for a job process (each beyond the warm ones waits for a process to boot, which under load
 * takes seconds), and (3) the CPUs are not already busier than `threshold`: past it, a new job process
 * cannot load in time and the running sessions stutter. A worker with no job at all takes one whatever
 * the CPU says: it is the least busy worker there is.
 *
 * The load it reports is in LiveKit's terms: LiveKit sends no job to a worker whose load reaches its
 * target load (`agents.target_load`, 0.7 by default), and the worker marks itself full at the same
 * threshold, so `threshold` is that target: reached by the CPUs' busy share, or by `maxJobs` jobs.
 */

export interface AdmissionLimits {
  /** Jobs at most, running or starting. */
  maxJobs: number;
  /** The load (0..1) at which the worker is full: LiveKit's target load. */
  threshold: number;
  /** How long an accepted job may take to reach a job process before it no longer counts as starting. */
  startTimeoutMs: number;
}

export type Decision = { accept: true } | { accept: false; reason: "full" | "starting" | "cpu" };

export class Admission {
  /** Accepted jobs not yet running in a job process, with when they were accepted. */
  private readonly starting = new Map<string, number>();

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly cpu: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Decides on a job request, given the ids of the jobs running in job processes now. */
  decide(jobId: string, running: readonly string[]): Decision {
    const starting = this.startingCount(running);
    if (running.length + starting >= this.limits.maxJobs) return { accept: false, reason: "full" };
    if (starting > 0) return { accept: false, reason: "starting" };
    if (running.length > 0 && this.cpu() >= this.limits.threshold) return { accept: false, reason: "cpu" };
    this.starting.set(jobId, this.now());
    return { accept: true };
  }

  /**
   * What the worker tells LiveKit, 0..1: the CPUs' busy share, or its jobs' share of `maxJobs` scaled so
   * that `maxJobs` jobs reach `threshold`, whichever is larger. LiveKit prefers the least loaded worker.
   * An idle worker is never full.
   */
  load(running: readonly string[]): number {
    const jobs = running.length + this.startingCount(running);
    if (jobs === 0) return 0;
    return Math.min(1, Math.max((this.limits.threshold * jobs) / this.limits.maxJobs, this.cpu()));
  }

  /**
   * Takes note of the jobs running now (the worker looks every few hundred milliseconds): a job counts as
   * starting only until it is first seen running. A short job could otherwise run and end between two
   * requests unseen, and go on counting as starting, refusing every new job, until startTimeoutMs.
   */
  observe(running: readonly string[]): void {
    this.startingCount(running);
  }

  private startingCount(running: readonly string[]): number {
    const now = this.now();
    for (const [id, acceptedAt] of this.starting) {
      if (running.includes(id) || now - acceptedAt > this.limits.startTimeoutMs) this.starting.delete(id);
    }
    return this.starting.size;
  }
}
