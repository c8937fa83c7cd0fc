/** Runs `work` for 0..count-1 with `concurrency` at a time; returns how many a second it did. */
export async function inParallel(count: number, work: (i: number) => Promise<unknown>, concurrency = 256): Promise<number> {
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return Math.round(count / ((Date.now() - started) / 1000));
}
