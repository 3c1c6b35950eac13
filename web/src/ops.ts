// Operation categories decide colours in the timeline and the tree, so
// that a glance tells channel traffic from locking from goroutine lifecycle.

export type Category = "goroutine" | "mutex" | "wait" | "channel" | "atomic" | "time" | "choose" | "history" | "other";

const categories: Record<string, Category> = {
  go: "goroutine", exit: "goroutine", panic: "goroutine", yield: "goroutine",
  lock: "mutex", unlock: "mutex", rlock: "mutex", runlock: "mutex", trylock: "mutex",
  "wg.add": "wait", "wg.done": "wait", "wg.wait": "wait", "cond.wait": "wait", signal: "wait", broadcast: "wait", once: "wait",
  send: "channel", recv: "channel", close: "channel", len: "channel", select: "channel", park: "channel",
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

// How Go says each operation, as record.Call does in heddle: the code that
// makes it, with %s for the expression of its object, and its name without one
// (the words of Go's goroutine traces where Go has no syntax for it).
const goOps: Record<string, [code: string, name: string]> = {
  go: ["go", "go"], exit: ["returns", "returns"], panic: ["panics", "panics"],
  lock: ["%s.Lock()", "Lock"], unlock: ["%s.Unlock()", "Unlock"], rlock: ["%s.RLock()", "RLock"],
  runlock: ["%s.RUnlock()", "RUnlock"], trylock: ["%s.TryLock()", "TryLock"], tryrlock: ["%s.TryRLock()", "TryRLock"],
  "lock.wait": ["%s.Lock() waits for readers", "Lock waits for readers"],
  "wg.add": ["%s.Add()", "Add"], "wg.done": ["%s.Done()", "Done"], "wg.wait": ["%s.Wait()", "Wait"],
  "cond.wait": ["%s.Wait()", "Wait"], signal: ["%s.Signal()", "Signal"], broadcast: ["%s.Broadcast()", "Broadcast"],
  once: ["%s.Do()", "Do"], "once.done": ["%s.Do() returns", "Do returns"], map: ["%s (sync.Map)", "sync.Map"],
  "atomic.load": ["atomic load of %s", "atomic load"], "atomic.store": ["atomic store to %s", "atomic store"],
  "atomic.rmw": ["atomic update of %s", "atomic update"],
  send: ["%s <-", "chan send"], recv: ["<-%s", "chan receive"], close: ["close(%s)", "close"], len: ["len(%s)", "len"],
  select: ["select", "select"], sleep: ["time.Sleep", "time.Sleep"], timer: ["sets a timer", "sets a timer"],
  clock: ["time advances", "time advances"], choose: ["heddle.Choose", "heddle.Choose"], yield: ["runtime.Gosched", "runtime.Gosched"],
  "synctest.test": ["synctest.Test", "synctest.Test"], "synctest.wait": ["synctest.Wait", "synctest.Wait"],
  "lin.call": ["call", "call"], "lin.return": ["return", "return"],
};

// call says an operation as a Go programmer would: the code that makes it on
// the object the program named x (from.mu.Lock(), wg.Done(), <-ch), or its
// name when x is not known (Lock, chan receive). A park is the operation it
// waits in that blocks: "<-ch blocks", "blocked in select".
export function call(op: string, waits?: string, x?: string): string {
  if (op === "park") {
    if (!waits) return "blocks";
    if (x || waits === "select") return `${call(waits, undefined, x)} blocks`;
    return `blocked in ${call(waits)}`;
  }
  const g = goOps[op];
  if (!g) return x ? `${op} ${x}` : op;
  if (!x || !g[0].includes("%s")) return g[1];
  return g[0].replace("%s", x);
}

// Names says how the program names objects: by the expression it wrote (from.mu), and, for
// those it names no way the source shows, their kind (mutex), as a report describes them.
export interface Names {
  name(obj: string): string | undefined;
  kind(obj: string): string | undefined;
}

export const noNames: Names = { name: () => undefined, kind: () => undefined };

// stepText says a step as the CLI's interleaving table does (cmd/heddle's printInterleaving):
// the call on the expression the program wrote at the step, else on the object's name, else
// the operation on the object described by its kind and id; the goroutine a go statement
// started; "defer " before a call that a defer statement made.
export function stepText(e: { op: string; waits?: string; obj?: string; expr?: string; child?: string; defer?: unknown }, names: Names): string {
  let cell: string;
  const name = e.obj ? names.name(e.obj) : undefined;
  if (e.expr || !e.obj || e.op === "sleep" || e.op === "timer") cell = call(e.op, e.waits, e.expr);
  else if (name) cell = call(e.op, e.waits, name);
  else {
    const kind = names.kind(e.obj);
    cell = `${call(e.op, e.waits)} on ${kind ? `${kind} ${e.obj}` : e.obj}`;
  }
  if (e.child) cell += ` ${e.child}`;
  if (e.defer) cell = `defer ${cell}`;
  return cell;
}

// bugNumber is how a person counts a bug: from 1, as its trace file is named (deadlock-1),
// where the files number bugs from 0.
export function bugNumber(id: number): number {
  return id + 1;
}

// opLabel is the short name of an operation, for a box of the timeline or an
// edge of the schedule tree, whose colour says it is a channel operation.
const shortLabels: Record<string, string> = { park: "blocks", send: "send", recv: "receive" };

export function opLabel(op: string): string {
  return shortLabels[op] ?? call(op);
}

// blocked says where a goroutine waits, as Go's goroutine traces do (record.Blocked):
// blocked in from.mu.Lock(), blocked in chan receive on s.done.
export function blocked(op: string, x?: string): string {
  if (x && (op === "send" || op === "recv")) return `blocked in ${call(op)} on ${x}`;
  return `blocked in ${call(op, undefined, x)}`;
}

// stateText says what a goroutine of a verdict was doing when the run ended: blocked in
// from.mu.Lock(), or its state (panicked, exited).
export function stateText(g: { state?: string; op?: string; obj?: string; expr?: string }): string {
  if (g.state !== "blocked" || !g.op) return g.state ?? "";
  if (g.expr || !g.obj) return blocked(g.op, g.expr);
  return `${blocked(g.op)} on ${g.obj}`;
}
