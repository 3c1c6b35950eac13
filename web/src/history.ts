import { h, s } from "./dom";
import type { HistoryOp } from "./types";

const ROW_H = 30;
const BAR_H = 20;
const LABEL_W = 56;
const CHAR_W = 7; // of the 11px monospace labels
const GAP = 12;

// HistoryView draws the history of a linearizability verdict: one row per
// goroutine, a bar per operation from its call to its return, so that the
// operations that overlapped in time overlap on the page. Columns follow the
// order of calls and returns, each as wide as the labels that must fit in it
// need (as record.DrawHistory does in text). Clicking a bar selects the
// operation's call step; mark highlights the operations in progress at a step.
export class HistoryView {
  readonly el: HTMLElement;
  private readonly bars: { op: HistoryOp; el: SVGGElement }[] = [];

  constructor(ops: HistoryOp[], pick: (step: number) => void) {
    const label = (op: HistoryOp): string => (op.return < 0 ? op.input : `${op.input} → ${op.output ?? ""}`);
    const last = Math.max(0, ...ops.map((op) => Math.max(op.call, op.return)));
    const byEnd: HistoryOp[][] = Array.from({ length: last + 1 }, () => []);
    for (const op of ops) if (op.return >= 0) byEnd[op.return]!.push(op);
    const x: number[] = [];
    for (let p = 0; p <= last; p++) {
      x[p] = p === 0 ? 0 : x[p - 1]! + GAP;
      for (const op of byEnd[p]!) x[p] = Math.max(x[p]!, x[op.call]! + label(op).length * CHAR_W + 16);
    }
    let right = x[last]! + GAP;
    for (const op of ops) if (op.return < 0) right = Math.max(right, x[op.call]! + label(op).length * CHAR_W + 28);
    const rows: string[] = [];
    for (const op of ops) if (!rows.includes(op.g)) rows.push(op.g);

    const W = LABEL_W + right + 8, H = rows.length * ROW_H + 6;
    const svg = s("svg", { width: W, height: H, class: "history-svg", "data-testid": "history-graph" });
    rows.forEach((g, i) => {
      svg.append(s("text", { x: 4, y: i * ROW_H + ROW_H / 2 + 4, class: "history-g", "data-testid": `history-row-${g}` }, g));
    });
    for (const op of ops) {
      const x0 = LABEL_W + x[op.call]!, x1 = LABEL_W + (op.return < 0 ? right : x[op.return]!);
      const y = rows.indexOf(op.g) * ROW_H + (ROW_H - BAR_H) / 2 + 3;
      const steps = op.return < 0 ? `from step ${op.callStep}, never returned` : `steps ${op.callStep}–${op.returnStep}`;
      const bar = s("g", { class: op.return < 0 ? "history-op history-pending" : "history-op", "data-testid": "history-op", "data-g": op.g, "data-label": label(op) },
        s("title", {}, `${op.g}: ${label(op)} (${steps})`),
        s("rect", { x: x0, y, width: Math.max(6, x1 - x0), height: BAR_H, rx: 3 }),
        s("text", { x: x0 + 6, y: y + BAR_H / 2 + 4 }, label(op)));
      bar.addEventListener("click", () => pick(op.callStep));
      svg.append(bar);
      this.bars.push({ op, el: bar });
    }
    this.el = h("div", { class: "history", "data-testid": "history" },
      h("h3", {}, "History: calls to returns"),
      h("div", { class: "history-scroll" }, svg),
      h("p", { class: "muted" }, "No sequential order of these operations that keeps every operation after those that returned before it was called gives them their outputs."));
  }

  // mark highlights the operations in progress at step, or none for null.
  mark(step: number | null): void {
    for (const { op, el } of this.bars) {
      const active = step !== null && op.callStep <= step && (op.return < 0 || step < op.returnStep);
      el.classList.toggle("active", active);
    }
  }
}
