/**
 * What the digital human's pull takes (pullConversation), pure: the queued items past its cursor, in
 * order, marked delivered, and the notes it must know again. A new job ends what another was saying.
 */
import type { ConversationItem } from "@dhs/contract";
import type { ConversationState, StoredContext, StoredItem } from "./conversation.js";
import { type Change, type ConversationEvent, settleSay } from "./conversation-machine.js";

/**
 * The job `identity` pulls what has a `seq` after `after`: queued items are marked delivered (notes
 * leave the queue then). A job the state does not know yet is a new one (the first, or one dispatched
 * again): what another job was saying is over (interrupted). Every note delivered before with a `seq`
 * after `after` is handed again (`redeliver`, whose texts the service reads from their items): a new job
 * learns what its predecessor knew, and a job whose pull's answer was lost gets what it missed, so a
 * pull is safe to repeat. `changed` is false when nothing needs writing.
 */
export function pull(
  sessionId: string,
  state: ConversationState,
  after: number,
  identity: string,
  nowMs: number,
): Change & { deliver: ConversationItem[]; redeliver: { id: string; seq: number }[]; changed: boolean } {
  const items: StoredItem[] = [];
  const events: ConversationEvent[] = [];
  const newcomer = state.agent !== identity;
  const deliver: ConversationItem[] = [];
  const delivered = [...state.delivered];
  const live: StoredItem[] = [];
  for (const item of state.live) {
    if (item.kind === "say" && item.status === "speaking" && item.speaker !== identity && newcomer) {
      const { settled, event } = settleSay(sessionId, item, "interrupted", nowMs);
      items.push(settled);
      events.push(event);
      continue;
    }
    if (item.seq <= after || item.status !== "queued") {
      live.push(item);
      continue;
    }
    deliver.push(itemOf(item));
    if (item.kind === "context") {
      items.push({ ...item, status: "delivered", deliveredAtMs: nowMs });
      delivered.push({ id: item.id, seq: item.seq });
      continue;
    }
    const marked = item.deliveredAtMs === null ? { ...item, deliveredAtMs: nowMs } : item;
    if (marked !== item) items.push(marked);
    live.push(marked);
  }
  // Notes taken before and past `after`: a new job's predecessor took them, or this job's answer was lost.
  const redeliver = state.delivered.filter((note) => note.seq > after);
  const changed = newcomer || items.length > 0;
  return { state: { ...state, agent: identity, live, delivered }, items, events, deliver, redeliver, changed };
}

function itemOf(item: StoredItem): ConversationItem {
  return item.kind === "say"
    ? { seq: item.seq, type: "say", id: item.id, text: item.text, interrupt: item.interrupt }
    : { seq: item.seq, type: "context", id: item.id, text: item.text, respond: item.respond };
}

/** A note delivered again to a new job: known, never answered twice. */
export function redeliveredNote(note: StoredContext): ConversationItem {
  return { seq: note.seq, type: "context", id: note.id, text: note.text, respond: false };
}
