/**
 * Deliveries to the customer's endpoint: create once more, following its session.created events to the
 * receiver during the load and after it, and, while the backlog drains with no other load, the service's
 * CPU and Redis's figures per delivery.
 */
import { until, type WebhookReceiver } from "@dhs/testkit";
import { quiet } from "./bench-receiver.js";
import { cpuUsOf, type RedisFigures, redisFigures, redisSnapshot } from "./figures.js";
import { type Measured, measure } from "./load.js";
import { DURATION_S } from "./settings.js";
import type { Stack } from "./stack.js";

export interface WebhookFigures {
  create: Measured;
  bareCreate: Measured;
  delivered: number;
  duplicates: number;
  duringLoadPerS: number;
  backlogAtEnd: number;
  drainPerS: number | null;
  /** While the backlog drained (no other load): the service's CPU and Redis's figures per delivery. */
  perDelivery: { cpuUs: number; redis: RedisFigures } | null;
}

/** A small backlog drains in moments, too short for the service's own background work not to count. */
export const MIN_DRAINED = 1000;

/** Create once more, following its session.created events to the receiver; the receiver is stopped after. */
export async function measureWebhooks(stack: Stack, receiver: WebhookReceiver, bareCreate: Measured): Promise<WebhookFigures> {
  const arrivals = receiver.received;
  // What the main measurements queued arrives first.
  await quiet(receiver);
  const before = arrivals.length;
  // On the receiver's clock (Date.now()), which stamps each arrival.
  const started = Date.now();
  const create = await measure(stack.serverUrl, "create", [], DURATION_S, { pid: stack.servicePid });
  const ended = Date.now();
  const duringLoad = arrivals.length - before;
  const backlogAtEnd = Math.max(0, create.ok - duringLoad);
  const drainFrom = { arrived: arrivals.length, cpuUs: cpuUsOf(stack.servicePid), redis: await redisSnapshot(stack.nodes) };
  // A delivery lost is a finding, not a figure.
  await until(() => arrivals.length - before >= create.ok, { timeoutMs: 120_000, what: "every event at the bench's webhook receiver" });
  const drained = arrivals.length - drainFrom.arrived;
  const perDelivery =
    drained >= MIN_DRAINED
      ? {
          cpuUs: Math.round((cpuUsOf(stack.servicePid) - drainFrom.cpuUs) / drained),
          redis: redisFigures(drainFrom.redis, await redisSnapshot(stack.nodes), drained),
        }
      : null;
  const drainedAt = arrivals.at(-1)?.at ?? ended;
  await receiver.stop();
  return {
    create,
    bareCreate,
    delivered: arrivals.length - before,
    duplicates: receiver.duplicates(),
    duringLoadPerS: Math.round(duringLoad / ((ended - started) / 1000)),
    backlogAtEnd,
    drainPerS: backlogAtEnd > 0 && drainedAt > ended ? Math.round(backlogAtEnd / ((drainedAt - ended) / 1000)) : null,
    perDelivery,
  };
}
