/**
 * A few slots of costly work (reading PDFs) shared fairly between owners (accounts): each owner waits in
 * a queue of its own, bounded, and a slot that frees goes to the owners in turn, never to whoever queued
 * most. One account sending many PDFs waits behind itself; another account's one PDF waits at most for a
 * slot to free, and is never told to come back because someone else's queue is full.
 */

/** Gives the slot back; call it exactly once. */
export type Release = () => void;

export class FairSlots {
  private running = 0;
  /** Waiting owners in turn order, each with its waiters. */
  private readonly queues = new Map<string, (() => void)[]>();

  constructor(
    private readonly slots: number,
    /** How many of one owner's may wait for a slot before the next is refused. */
    private readonly maxWaitingPerOwner: number,
  ) {}

  /** A slot for `owner`, once its turn comes; undefined at once when its own queue is full. */
  acquire(owner: string): Promise<Release> | undefined {
    if (this.running < this.slots && this.queues.size === 0) return Promise.resolve(this.take());
    const queue = this.queues.get(owner) ?? [];
    if (queue.length >= this.maxWaitingPerOwner) return undefined;
    return new Promise((resolve) => {
      queue.push(() => resolve(this.take()));
      this.queues.set(owner, queue);
    });
  }

  /** How many wait, all owners together. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  private take(): Release {
    this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.next();
    };
  }

  /** The first owner in turn gets the slot, then goes to the back of the turn if it has more waiting. */
  private next(): void {
    const first = this.queues.entries().next();
    if (first.done) return;
    const [owner, queue] = first.value;
    this.queues.delete(owner);
    const wake = queue.shift() as () => void;
    if (queue.length > 0) this.queues.set(owner, queue);
    wake();
  }
}
