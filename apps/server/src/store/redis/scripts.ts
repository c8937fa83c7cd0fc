/**
 * Every Lua script of the Redis stores, registered on one ioredis client and called by name. Each is
 * defined beside the part of the store that runs it, with a header naming its KEYS[i] and ARGV[i] and
 * what it returns, and builders that turn named arguments into them (script.ts), so callers never line
 * up positional values: the sessions' in sessions/*-scripts.ts, customer webhooks' in
 * customer-webhook-scripts.ts and customer-webhook-copy-scripts.ts, the conversations' in conversation-scripts.ts, the keys of digital humans' creates in digital-human-key-scripts.ts. Each runs atomically in Redis on the keys of one slot.
 */
import type { Cluster, Redis } from "ioredis";
import { NO_TRACING, type Tracing } from "../../tracing/tracing.js";
import { CONVERSATION_SCRIPTS } from "./conversation-scripts.js";
import { WEBHOOK_COPY_SCRIPTS } from "./customer-webhook-copy-scripts.js";
import { WEBHOOK_SCRIPTS } from "./customer-webhook-scripts.js";
import { DIGITAL_HUMAN_KEY_SCRIPTS } from "./digital-human-key-scripts.js";
import type { Script } from "./script.js";
import { HISTORY_QUEUE_SCRIPTS } from "./sessions/history-queue-scripts.js";
import { IDEMPOTENT_CREATE_SCRIPTS } from "./sessions/idempotent-creates-scripts.js";
import { LEASE_SCRIPTS } from "./sessions/lease-scripts.js";
import { OPEN_SESSION_SCRIPTS } from "./sessions/open-sessions-scripts.js";
import { SESSION_RECORD_SCRIPTS } from "./sessions/session-records-scripts.js";
import { TIMER_QUEUE_SCRIPTS } from "./sessions/timer-queue-scripts.js";
import { USAGE_MOVE_SCRIPTS } from "./sessions/usage-moves-scripts.js";

const SCRIPTS = {
  ...IDEMPOTENT_CREATE_SCRIPTS,
  ...OPEN_SESSION_SCRIPTS,
  ...SESSION_RECORD_SCRIPTS,
  ...TIMER_QUEUE_SCRIPTS,
  ...HISTORY_QUEUE_SCRIPTS,
  ...USAGE_MOVE_SCRIPTS,
  ...LEASE_SCRIPTS,
  ...WEBHOOK_SCRIPTS,
  ...WEBHOOK_COPY_SCRIPTS,
  ...DIGITAL_HUMAN_KEY_SCRIPTS,
  ...CONVERSATION_SCRIPTS,
};

type ScriptName = keyof typeof SCRIPTS;
type ArgsOf<N extends ScriptName> = (typeof SCRIPTS)[N] extends Script<infer Args, unknown> ? Args : never;
type ReplyOf<N extends ScriptName> = (typeof SCRIPTS)[N] extends Script<unknown, infer Reply> ? Reply : never;

type Invoke = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<unknown>;

/**
 * The scripts registered on one ioredis client (EVALSHA, falling back to EVAL), called by name. With
 * tracing on, each call within a trace is a span named by its script (Redis itself only sees EVALSHA and a
 * hash); its keys and arguments are not recorded.
 */
export class RedisScripts {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly tracing: Tracing = NO_TRACING,
  ) {
    for (const [name, { lua }] of Object.entries(SCRIPTS)) redis.defineCommand(commandOf(name), { lua });
  }

  run<N extends ScriptName>(name: N, args: ArgsOf<N>): Promise<ReplyOf<N>> {
    if (!this.tracing.enabled) return this.invoke(name, args);
    return this.tracing.span(`redis ${name}`, { "db.system.name": "redis", "db.operation.name": name }, () => this.invoke(name, args), {
      kind: "client",
      withinTrace: true,
    });
  }

  private invoke<N extends ScriptName>(name: N, args: ArgsOf<N>): Promise<ReplyOf<N>> {
    const definition = SCRIPTS[name] as unknown as Script<ArgsOf<N>, ReplyOf<N>>;
    const keys = definition.keys(args);
    const invoke = (this.redis as unknown as Record<string, Invoke>)[commandOf(name)] as Invoke;
    return invoke.call(this.redis, keys.length, ...keys, ...definition.argv(args)) as Promise<ReplyOf<N>>;
  }
}

const commandOf = (name: string) => `dhs_${name}`;
