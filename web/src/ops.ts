// Operation categories decide colours in the timeline and the tree, so
// that a glance tells channel traffic from locking from goroutine lifecycle.

export type Category = "goroutine" | "mutex" | "wait" | "channel" | "atomic" | "time" | "choose" | "history" | "other";

const categories: Record<string, Category> = {
  go: "goroutine", exit: "goroutine", panic: "goroutine", yield: "goroutine",
  lock: "mutex", unlock: "mutex", rlock: "mutex", runlock: "mutex", trylock: "mutex",
  "wg.add": "wait", "wg.wait": "wait", "cond.wait": "wait", signal: "wait", broadcast: "wait", once: "wait",
  send: "channel", recv: "channel", close: "channel", len: "channel", select: "channel",
  "atomic.load": "atomic", "atomic.store": "atomic", "atomic.rmw": "atomic", map: "atomic",
  sleep: "time", timer: "time", clock: "time",
  choose: "choose",
  "lin.call": "history", "lin.return": "history",
};

export function category(op: string): Category {
  return categories[op] ?? "other";
}

export const categoryColor: Record<Category, string> = {
  goroutine: "#7f8c8d",
  mutex: "#c0392b",
  wait: "#8e44ad",
  channel: "#2980b9",
  atomic: "#16a085",
  time: "#d68910",
  choose: "#27ae60",
  history: "#2563eb",
  other: "#5d6d7e",
};

// Ops that acquire or release a lock, for working out who holds what.
export const acquires = new Set(["lock", "rlock", "trylock"]);
export const releases = new Set(["unlock", "runlock"]);
