// The model behind the Heddle view: the explorations started in debug
// sessions and the bugs they found, built from the adapter's events.
// Nothing here depends on VS Code.

import {
  Bug,
  BugGoroutine,
  Position,
  WireId,
  events,
  formatPosition,
  parseBugFound,
  parseExploreDone,
  parseProgress,
} from "./protocol";

export type ExplorationState = "running" | "complete" | "budget" | "cancelled" | "failed" | "ended";

export interface Exploration {
  key: string; // unique in the model: session id and exploration id
  sessionId: string;
  sessionName: string;
  id: string; // the adapter's exploration id
  wireId: WireId; // the same, as the adapter sent it
  seq: number; // 1, 2, … in the order explorations were seen
  strategy?: string;
  budget?: string;
  state: ExplorationState;
  runs: number;
  bugCount: number; // as the adapter counts them
  schedulesPerSecond: number;
  elapsedMs: number;
  error?: string;
  bugs: Bug[];
}

export interface StartOptions {
  strategy?: string;
  budget?: string;
}

export function explorationKey(sessionId: string, id: string): string {
  return `${sessionId}\u0000${id}`;
}

export class ExplorationsModel {
  private readonly byKey = new Map<string, Exploration>();
  private seq = 0;
  private readonly listeners: Array<() => void> = [];

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.push(listener);
    return {
      dispose: () => {
        const i = this.listeners.indexOf(listener);
        if (i >= 0) this.listeners.splice(i, 1);
      },
    };
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  explorations(): Exploration[] {
    return [...this.byKey.values()];
  }

  get(key: string): Exploration | undefined {
    return this.byKey.get(key);
  }

  find(sessionId: string, id: string): Exploration | undefined {
    return this.byKey.get(explorationKey(sessionId, id));
  }

  findBug(key: string, bugId: string): Bug | undefined {
    return this.byKey.get(key)?.bugs.find((b) => b.id === bugId);
  }

  running(): Exploration[] {
    return this.explorations().filter((x) => x.state === "running");
  }

  private ensure(sessionId: string, sessionName: string, wireId: WireId): Exploration {
    const id = String(wireId);
    const key = explorationKey(sessionId, id);
    let x = this.byKey.get(key);
    if (!x) {
      x = {
        key,
        sessionId,
        sessionName,
        id,
        wireId,
        seq: ++this.seq,
        state: "running",
        runs: 0,
        bugCount: 0,
        schedulesPerSecond: 0,
        elapsedMs: 0,
        bugs: [],
      };
      this.byKey.set(key, x);
    }
    return x;
  }

  // start records an exploration the adapter acknowledged with its id. Its
  // events may have arrived before the acknowledgement; they are kept.
  start(sessionId: string, sessionName: string, id: WireId, opts: StartOptions = {}): Exploration {
    const x = this.ensure(sessionId, sessionName, id);
    if (opts.strategy !== undefined) x.strategy = opts.strategy;
    if (opts.budget !== undefined) x.budget = opts.budget;
    this.changed();
    return x;
  }

  // handleEvent applies one custom event of a session. It returns the
  // exploration it changed, or undefined for events that are not about
  // explorations or are malformed.
  handleEvent(sessionId: string, sessionName: string, event: string, body: unknown): Exploration | undefined {
    let x: Exploration | undefined;
    switch (event) {
      case events.progress: {
        const p = parseProgress(body);
        if (!p) return undefined;
        x = this.ensure(sessionId, sessionName, p.wireId);
        x.runs = Math.max(x.runs, p.runs);
        x.bugCount = Math.max(x.bugCount, p.bugs, x.bugs.length);
        x.schedulesPerSecond = p.schedulesPerSecond;
        x.elapsedMs = p.elapsedMs;
        break;
      }
      case events.bugFound: {
        const b = parseBugFound(body);
        if (!b) return undefined;
        x = this.ensure(sessionId, sessionName, b.wireId);
        // The adapter sends a bug again when it knows more (its schedule
        // file and replay command, once the search has ended).
        const i = x.bugs.findIndex((have) => have.id === b.bug.id);
        if (i >= 0) x.bugs[i] = b.bug;
        else x.bugs.push(b.bug);
        x.bugCount = Math.max(x.bugCount, x.bugs.length);
        break;
      }
      case events.exploreDone: {
        const d = parseExploreDone(body);
        if (!d) return undefined;
        x = this.ensure(sessionId, sessionName, d.wireId);
        x.runs = d.runs;
        x.bugCount = Math.max(d.bugs, x.bugs.length);
        if (d.error) {
          x.state = "failed";
          x.error = d.error;
        } else if (d.cancelled) x.state = "cancelled";
        else if (d.complete) x.state = "complete";
        else x.state = "budget";
        break;
      }
      default:
        return undefined;
    }
    this.changed();
    return x;
  }

  // sessionEnded marks the explorations of a session that never finished.
  sessionEnded(sessionId: string): void {
    let any = false;
    for (const x of this.byKey.values()) {
      if (x.sessionId === sessionId && x.state === "running") {
        x.state = "ended";
        any = true;
      }
    }
    if (any) this.changed();
  }

  // clear forgets every exploration that is not running.
  clear(): void {
    for (const [k, x] of this.byKey) if (x.state !== "running") this.byKey.delete(k);
    this.changed();
  }
}

// What the tree shows.

const stateText: Record<ExplorationState, string> = {
  running: "running",
  complete: "complete",
  budget: "budget spent",
  cancelled: "cancelled",
  failed: "failed",
  ended: "session ended",
};

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

export function explorationLabel(x: Exploration): string {
  const how = [x.strategy, x.budget].filter(Boolean).join(", ");
  return `Exploration ${x.seq}${how ? ` (${how})` : ""}`;
}

export function explorationDescription(x: Exploration): string {
  const parts = [plural(x.runs, "run"), plural(x.bugCount, "bug")];
  if (x.state === "running" && x.schedulesPerSecond > 0) parts.push(`${Math.round(x.schedulesPerSecond)}/s`);
  parts.push(x.state === "failed" && x.error ? `failed: ${x.error}` : stateText[x.state]);
  return parts.join(" · ");
}

export function explorationTooltip(x: Exploration): string {
  const lines = [`${explorationLabel(x)} in ${x.sessionName}`, explorationDescription(x)];
  if (x.elapsedMs > 0) lines.push(`${(x.elapsedMs / 1000).toFixed(1)} s`);
  return lines.join("\n");
}

// bugPosition is where the tree points for a bug: the position of the first
// goroutine that has one (the adapter lists the goroutines of the bug first).
// bugPosition is where a bug is shown: for a deadlock, at the innermost of the blocked
// operations. A lock cycle is the cause; the goroutines that wait for the cycle's members to
// finish (the root in wg.Wait) are its consequence, so they come last.
export function bugPosition(b: Pick<Bug, "goroutines">): Position | undefined {
  const rank = (g: BugGoroutine): number => {
    const op = (g.op ?? "").split(" ")[0]!.toLowerCase();
    if (op === "lock" || op === "rlock") return 0;
    if (op.endsWith("wait")) return 2;
    return 1;
  };
  const placed = b.goroutines.filter((g) => g.position);
  placed.sort((x, y) => rank(x) - rank(y));
  return placed[0]?.position;
}

export function bugLabel(b: Bug): string {
  return b.kind;
}

export function bugDescription(b: Bug): string {
  return formatPosition(bugPosition(b));
}

export function bugTooltip(b: Bug): string {
  const lines = [b.message || b.kind];
  for (const g of b.goroutines) {
    const what = [g.state, g.op].filter(Boolean).join(": ");
    const where = formatPosition(g.position, true);
    lines.push(`${g.id}${what ? ` [${what}]` : ""}${where ? ` at ${where}` : ""}`);
  }
  if (b.replay) lines.push(`replay: ${b.replay}`);
  return lines.join("\n");
}

export function progressMessage(x: Exploration): string {
  const parts = [plural(x.runs, "run"), plural(x.bugCount, "bug")];
  if (x.schedulesPerSecond > 0) parts.push(`${Math.round(x.schedulesPerSecond)} schedules/s`);
  return parts.join(", ");
}

export function doneMessage(x: Exploration): string {
  const found = x.bugCount > 0 ? `found ${plural(x.bugCount, "bug")}` : "found no bug";
  switch (x.state) {
    case "complete":
      return `Heddle explored every interleaving in ${plural(x.runs, "run")} and ${found}.`;
    case "budget":
      return `Heddle spent its budget after ${plural(x.runs, "run")} and ${found}.`;
    case "cancelled":
      return `Heddle exploration cancelled after ${plural(x.runs, "run")}; ${found}.`;
    case "failed":
      return `Heddle exploration failed: ${x.error ?? "unknown error"}`;
    case "ended":
      return `The debug session ended during the exploration, after ${plural(x.runs, "run")}.`;
    default:
      return `Heddle: ${progressMessage(x)}`;
  }
}
