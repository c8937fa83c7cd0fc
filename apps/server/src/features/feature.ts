/**
 * A feature as one value: the operations it answers (the API keys' and the digital human's), the session
 * timers it fires, the routes of its own outside /v1, the background work every replica runs for it, and
 * what to release at the end. compose.ts builds each feature's services in the order they need each
 * other, then hands the list to `assembleFeatures`, which the app, the timer sweeper, start and close
 * read: adding a feature adds one entry to that list, not a line in each of them.
 *
 * The list must answer every operation of the contract and fire every feature timer: one missing does not
 * compile (the call names it), one answered twice throws at compose, so every test that composes fails.
 */
import { type ApiKeyOperationId, type DigitalHumanOperationId, operationList } from "@dhs/contract";
import type { Router } from "express";
import { FEATURE_TIMERS, type FeatureTimer, type FeatureTimerHandlers } from "../domain/sessions/feature-timers.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../http/operations.js";

/** Work a replica repeats for a feature (a sweep, a queue's delivery), from start until close. */
export interface Background {
  start(): void;
  /** Stops repeating and waits for the work in flight. */
  stop(): Promise<void>;
}

export interface Feature {
  /** In logs and in the errors below. */
  readonly name: string;
  readonly operations?: Partial<OperationHandlers>;
  readonly digitalHumanOperations?: Partial<DigitalHumanOperationHandlers>;
  readonly timers?: Partial<FeatureTimerHandlers>;
  /** Express routes outside /v1, ahead of the API (the local recordings store's signed links). */
  readonly routes?: Router | undefined;
  readonly background?: readonly (Background | undefined)[];
  /** Released once every feature's background stopped (threads, HTTP agents, SDK clients). */
  readonly close?: () => void | Promise<void>;
}

type KeysOf<F, P extends "operations" | "digitalHumanOperations" | "timers"> = F extends { readonly [K in P]?: infer V }
  ? keyof NonNullable<V>
  : never;

/** What a list of features leaves unanswered: never, or the names the compiler prints. */
export type Unanswered<L extends readonly Feature[]> =
  | Exclude<ApiKeyOperationId, KeysOf<L[number], "operations">>
  | Exclude<DigitalHumanOperationId, KeysOf<L[number], "digitalHumanOperations">>
  | Exclude<FeatureTimer, KeysOf<L[number], "timers">>;

export interface AssembledFeatures {
  operations: OperationHandlers;
  digitalHumanOperations: DigitalHumanOperationHandlers;
  timers: FeatureTimerHandlers;
  routes: Router[];
  /** Starts every feature's background work (once the server listens). */
  start(): void;
  /** Stops every feature's background work at once, then closes the features, last first. */
  stop(): Promise<void>;
}

/** Nothing when the list answers everything; otherwise one property per name it leaves unanswered, which
 * the compiler's error lists ("missing the following properties"). */
type Complete<L extends readonly Feature[]> = [Unanswered<L>] extends [never] ? unknown : { readonly [K in Unanswered<L>]: "unanswered" };

export function assembleFeatures<const L extends readonly Feature[]>(features: L & Complete<L>): AssembledFeatures {
  const operations = merged(features, "operations");
  const digitalHumanOperations = merged(features, "digitalHumanOperations");
  const timers = merged(features, "timers");
  // The compiler checked the list; this checks what a cast or a spread of `any` could still hide.
  const missing = [
    ...operationList.map((op) => op.operationId).filter((id) => !(id in operations) && !(id in digitalHumanOperations)),
    ...FEATURE_TIMERS.filter((timer) => !(timer in timers)),
  ];
  if (missing.length > 0) throw new Error(`no feature answers ${missing.join(", ")}`);
  const background = features.flatMap((feature) => (feature.background ?? []).filter((work) => work !== undefined));
  return {
    operations: operations as OperationHandlers,
    digitalHumanOperations: digitalHumanOperations as DigitalHumanOperationHandlers,
    timers: timers as FeatureTimerHandlers,
    routes: features.flatMap((feature) => (feature.routes ? [feature.routes] : [])),
    start: () => {
      for (const work of background) work.start();
    },
    stop: async () => {
      await Promise.all(background.map((work) => work.stop()));
      for (const feature of [...features].reverse()) await feature.close?.();
    },
  };
}

function merged(features: readonly Feature[], part: "operations" | "digitalHumanOperations" | "timers"): Record<string, unknown> {
  const table: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const feature of features) {
    for (const [name, handler] of Object.entries(feature[part] ?? {})) {
      const other = owner.get(name);
      if (other !== undefined) throw new Error(`${name} is answered by two features: ${other} and ${feature.name}`);
      owner.set(name, feature.name);
      table[name] = handler;
    }
  }
  return table;
}
