import type { Api } from "./api";
import { basename, clear, h, posText, s } from "./dom";
import { HistoryView } from "./history";
import { acquires, blocked as blockedText, category, categoryColor, opLabel, releases, stateText, stepText, type Names } from "./ops";
import type { Decision, SourceSnippet, SyncObject, Trace, TraceEvent, VerdictGoroutine } from "./types";

// Steps are at least this far apart, and spread out to fill the width when
// a trace is short; a box is as wide as the longest operation's name.
const MIN_GAP = 6;
const MAX_STEP_W = 120;
const CHAR_W = 5.6; // of the boxes' 9px monospace
const BOX_H = 22;
const LANE_H = 40;
const RULER_H = 24;
const PLAY_MS = 450;

export interface TimelineEvents {
  // userSelected is called when the user, not the debugger, moved to a step.
  userSelected(step: number): void;
}

interface Lane {
  g: string;
  title: string;
  index: number;
  // The lane's process in a process group's trace (P2 for P2:G1.2), "" otherwise, and the
  // process's index among the trace's processes.
  process: string;
  processIndex: number;
}

// processOf returns the process of a goroutine of a process group (P2 for P2:G1.2), or "".
function processOf(g: string): string {
  const i = g.indexOf(":");
  return i < 0 ? "" : g.slice(0, i);
}

// TimelineView shows one trace as swimlanes, one per goroutine, over step
// index, with happens-before arrows, and steps through it.
export class TimelineView {
  readonly el: HTMLElement;
  private readonly head: HTMLElement;
  private readonly lanesCol: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly source: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly waitFor: HTMLElement;
  // historyPanel holds the history of a linearizability verdict, full width:
  // its bars need room more than the verdict's text does.
  private readonly historyPanel: HTMLElement;
  private readonly counter: HTMLElement;
  private readonly playButton: HTMLButtonElement;
  private readonly legendEl = legend();
  private trace: Trace | null = null;
  private events: TraceEvent[] = [];
  private lanes = new Map<string, Lane>();
  private objects = new Map<string, SyncObject>();
  private decisionsAt = new Map<number, Decision[]>();
  private indexOfStep = new Map<number, number>();
  private boxes: SVGGElement[] = [];
  private arrows: { from: number; to: number; el: SVGPathElement }[] = [];
  private cursor: SVGLineElement | null = null;
  private stepW = 34;
  private boxW = 28;
  private laidWidth = 0; // the lanes' width the steps were spread over
  private history: HistoryView | null = null;
  private selected: number | null = null; // index into events
  private playTimer = 0;
  private sourceRequest = 0;
  private readonly snippets = new Map<string, Promise<SourceSnippet>>();
  name = "";

  constructor(private readonly api: Api, private readonly events_: TimelineEvents) {
    this.head = h("div", { class: "timeline-head" });
    const button = (id: string, label: string, title: string, f: () => void): HTMLButtonElement => {
      const b = h("button", { "data-testid": id, title }, label);
      b.addEventListener("click", f);
      return b;
    };
    this.playButton = button("timeline-play", "▶ Play", "Play or pause (Space)", () => this.togglePlay());
    this.counter = h("span", { class: "counter", "data-testid": "timeline-counter" });
    const controls = h("div", { class: "toolbar" },
      button("timeline-first", "First", "First step (Home)", () => this.moveTo(0, true)),
      button("timeline-prev", "◀ Back", "Step back (← or k)", () => this.step(-1)),
      this.playButton,
      button("timeline-next", "Forward ▶", "Step forward (→ or j)", () => this.step(1)),
      button("timeline-last", "Last", "Last step (End)", () => this.moveTo(this.events.length - 1, true)),
      this.counter,
    );
    this.lanesCol = h("div", { class: "lane-labels" });
    this.scroller = h("div", { class: "lanes-scroll", "data-testid": "timeline-lanes" });
    this.detail = h("div", { class: "step-detail", "data-testid": "step-detail" });
    this.source = h("div", { class: "source", "data-testid": "source-snippet" });
    this.verdict = h("div", { class: "verdict", "data-testid": "timeline-verdict" });
    this.waitFor = h("div", { class: "waitfor" });
    this.historyPanel = h("div", { class: "panel history-panel", hidden: true });
    this.el = h("section", { class: "view timeline-view", "data-testid": "view-timeline" },
      this.head, controls,
      h("div", { class: "lanes" }, this.lanesCol, this.scroller),
      this.legendEl,
      h("div", { class: "timeline-panels" },
        h("div", { class: "panel step-panel", "data-testid": "step-panel" }, h("h3", {}, "Step"), this.detail),
        h("div", { class: "panel source-panel", "data-testid": "source-panel" }, h("h3", {}, "Source"), this.source),
        h("div", { class: "panel verdict-panel", "data-testid": "verdict-panel" }, h("h3", {}, "Verdict"), this.verdict, this.waitFor)),
      this.historyPanel,
    );
    this.showEmpty("Open a bug from the tree or the bugs list to see its timeline.");
    // Short traces spread over the lanes' width, so a new width lays them out again.
    new ResizeObserver(() => {
      const w = this.scroller.clientWidth;
      if (!this.trace || this.events.length === 0 || w === 0 || Math.abs(w - this.laidWidth) < 16) return;
      this.renderLanes();
      if (this.selected !== null) this.moveTo(this.selected, false);
    }).observe(this.scroller);
  }

  private showEmpty(text: string): void {
    clear(this.head);
    this.head.append(h("p", { class: "muted" }, text));
    clear(this.lanesCol);
    clear(this.scroller);
    clear(this.detail);
    clear(this.source);
    clear(this.verdict);
    clear(this.waitFor);
    clear(this.historyPanel);
    this.historyPanel.hidden = true;
    this.counter.textContent = "";
    this.legendEl.hidden = true;
  }

  showError(text: string): void {
    this.trace = null;
    this.events = [];
    this.selected = null;
    this.showEmpty(text);
  }

  hasTrace(): boolean {
    return this.trace !== null;
  }

  selectedStep(): number | null {
    return this.selected === null ? null : this.events[this.selected]!.step;
  }

  show(trace: Trace, name: string): void {
    this.stopPlay();
    this.trace = trace;
    this.name = name;
    this.events = trace.events ?? [];
    this.selected = null;
    this.objects = new Map((trace.objects ?? []).map((o) => [o.id, o]));
    this.indexOfStep = new Map(this.events.map((e, i) => [e.step, i]));
    this.decisionsAt = new Map();
    for (const d of trace.decisions ?? []) {
      if (d.step === undefined) continue;
      const list = this.decisionsAt.get(d.step) ?? [];
      list.push(d);
      this.decisionsAt.set(d.step, list);
    }
    this.lanes = new Map();
    const addLane = (g: string, title: string): void => {
      if (!this.lanes.has(g)) this.lanes.set(g, { g, title, index: this.lanes.size, process: "", processIndex: 0 });
    };
    for (const g of trace.goroutines ?? []) addLane(g.id, g.func ? `${g.func}${g.pos ? ` (${posText(g.pos)})` : ""}` : g.id);
    for (const e of this.events) addLane(e.g, e.g === "clock" ? "the virtual clock" : e.g);
    if (trace.program.group) {
      // A process group's lanes are grouped by process, in process order.
      const procs = [...new Set([...this.lanes.keys()].map(processOf))].sort((a, b) => a.length - b.length || a.localeCompare(b));
      const lanes = [...this.lanes.values()].sort((a, b) => procs.indexOf(processOf(a.g)) - procs.indexOf(processOf(b.g)) || a.index - b.index);
      this.lanes = new Map(lanes.map((l, i) => [l.g, { ...l, index: i, process: processOf(l.g), processIndex: procs.indexOf(processOf(l.g)) }]));
    }

    clear(this.head);
    const p = trace.program;
    this.head.append(
      h("h2", { "data-testid": "timeline-title" }, name),
      h("p", { class: "muted" }, [p.package, p.test].filter(Boolean).join(" · "), trace.strategy ? ` · ${trace.strategy}` : "", ` · ${this.events.length} steps, ${(trace.decisions ?? []).length} decisions`),
    );
    this.legendEl.hidden = this.events.length === 0;
    this.renderLanes();
    this.showLegend();
    this.renderVerdict();
    this.renderDetail();
  }

  private renderLanes(): void {
    clear(this.lanesCol);
    clear(this.scroller);
    this.boxes = [];
    this.arrows = [];
    const trace = this.trace!;
    if (this.events.length === 0) {
      this.scroller.append(h("div", { class: "muted pad" }, "This file records decisions but no events: replay it to see the steps."),
        h("ol", { class: "decisions", "data-testid": "decision-list" }, ...(trace.decisions ?? []).map((d) =>
          h("li", {}, `${d.kind}: ${d.pick}`, d.of ? ` of ${d.of.join(", ")}` : "", d.at ? ` at ${d.at}` : ""))));
      return;
    }
    this.lanesCol.append(h("div", { class: "lane-label ruler-label" }, "step"));
    let prevProcess: string | null = null;
    for (const lane of this.lanes.values()) {
      if (lane.process === "") {
        this.lanesCol.append(h("div", { class: "lane-label", title: lane.title, "data-testid": `lane-${lane.g}` }, lane.g));
        continue;
      }
      // A process's first lane starts its group with the process's name.
      const first = lane.process !== prevProcess;
      prevProcess = lane.process;
      this.lanesCol.append(h("div", { class: `lane-label process-lane process-${lane.processIndex % 4}${first ? " process-first" : ""}`, title: lane.title, "data-testid": `lane-${lane.g}` },
        h("span", { class: "process-tag", "data-testid": first ? `process-${lane.process}` : undefined }, lane.process), lane.g.slice(lane.process.length + 1)));
    }
    const n = this.events.length;
    const ends = (this.trace!.verdict?.goroutines ?? []).map(endLabel);
    const longest = Math.max(4, ...this.events.map((e) => opLabel(e.op).length), ...ends.map((o) => o.length));
    this.boxW = Math.ceil(longest * CHAR_W) + 8;
    this.laidWidth = this.scroller.clientWidth;
    this.stepW = Math.max(this.boxW + MIN_GAP, Math.min(MAX_STEP_W, (this.laidWidth - 12) / (n + 1)));
    const STEP_W = this.stepW, BOX_W = this.boxW;
    const width = Math.max((n + 1) * STEP_W + 8, this.laidWidth - 2);
    const height = RULER_H + this.lanes.size * LANE_H;
    const svg = s("svg", { width, height, class: "lanes-svg" });
    svg.append(s("defs", {},
      s("marker", { id: "hb-head", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
        s("path", { d: "M0,0 L10,5 L0,10 z", class: "hb-head" })),
      s("pattern", { id: "blocked-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        s("rect", { width: 6, height: 6, class: "blocked-bg" }),
        s("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "blocked-line" }))));
    const laneY = (g: string): number => RULER_H + this.lanes.get(g)!.index * LANE_H;
    const x = (i: number): number => 4 + i * STEP_W + (STEP_W - BOX_W) / 2;

    // Ruler with step numbers and decision marks.
    const ruler = s("g", { class: "ruler" });
    for (let i = 0; i < n; i++) {
      const step = this.events[i]!.step;
      if (i % (STEP_W >= 30 ? 1 : 5) === 0) ruler.append(s("text", { x: x(i) + BOX_W / 2, y: 12, "text-anchor": "middle" }, step));
      const ds = this.decisionsAt.get(step);
      if (ds) {
        const cx = x(i) - (STEP_W - BOX_W) / 2, cy = 18;
        ruler.append(s("path", { d: `M${cx},${cy - 4} L${cx + 4},${cy} L${cx},${cy + 4} L${cx - 4},${cy} z`, class: "decision-mark" },
          s("title", {}, ds.map((d) => `${d.kind}: picked ${d.pick}${d.of ? ` of ${d.of.join(", ")}` : ""}`).join("\n"))));
      }
    }
    svg.append(ruler);

    // Lane backgrounds, lifetimes and blocked intervals.
    const back = s("g", { class: "lane-back" });
    for (const lane of this.lanes.values()) {
      const y = laneY(lane.g);
      back.append(s("rect", { x: 0, y, width, height: LANE_H, class: lane.process !== "" ? `lane-process-${lane.processIndex % 4}` : lane.index % 2 ? "lane-odd" : "lane-even" }));
    }
    // A rule between the lane groups of two processes.
    let prev: Lane | null = null;
    for (const lane of this.lanes.values()) {
      if (prev && lane.process !== prev.process) back.append(s("line", { x1: 0, x2: width, y1: laneY(lane.g), y2: laneY(lane.g), class: "process-rule" }));
      prev = lane;
    }
    const stepLabel = (i: number): string => (i < n ? String(this.events[i]!.step) : "the end");
    const life = this.lifetimes();
    for (const [g, [from, to]] of life) {
      const y = laneY(g) + LANE_H / 2;
      back.append(s("line", { x1: x(from), y1: y, x2: x(to) + BOX_W, y2: y, class: "lifeline" }));
    }
    for (const [g, runs] of this.blocked(life)) {
      for (const [a, b] of runs) {
        back.append(s("rect", { x: x(a) - (STEP_W - BOX_W) / 2, y: laneY(g) + 4, width: (b - a + 1) * STEP_W, height: LANE_H - 8, class: "blocked", "data-testid": `blocked-${g}` },
          s("title", {}, `${g} blocked from step ${stepLabel(a)} to ${stepLabel(b)}`)));
      }
    }
    svg.append(back);

    // What each goroutine was blocked on when the run ended.
    const end = s("g", { class: "end-states" });
    for (const vg of this.trace!.verdict?.goroutines ?? []) {
      if (!this.lanes.has(vg.id)) continue;
      const y = laneY(vg.id) + (LANE_H - BOX_H) / 2;
      end.append(s("g", { class: "end-state" },
        s("rect", { x: x(n), y, width: BOX_W, height: BOX_H, rx: 3 }),
        s("text", { x: x(n) + BOX_W / 2, y: y + 15, "text-anchor": "middle" }, endLabel(vg)),
        s("title", {}, `${vg.id} ${stateText(vg)} ${posText(vg.pos)}`)));
    }
    svg.append(end);

    // Happens-before arrows, and dashed ones from each go to the child.
    const arrows = s("g", { class: "arrows" });
    const mid = (g: string): number => laneY(g) + LANE_H / 2;
    const firstOf = new Map<string, number>();
    this.events.forEach((e, i) => {
      if (!firstOf.has(e.g)) firstOf.set(e.g, i);
    });
    this.events.forEach((e, i) => {
      for (const a of e.after ?? []) {
        const j = this.indexOfStep.get(a);
        if (j === undefined) continue;
        const from = this.events[j]!;
        const x1 = x(j) + BOX_W, y1 = mid(from.g), x2 = x(i), y2 = mid(e.g);
        const dx = Math.max(12, (x2 - x1) / 2);
        const el = s("path", { d: `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`, class: "hb", "marker-end": "url(#hb-head)", "data-testid": "hb-arrow", "data-from": a, "data-to": e.step },
          s("title", {}, `step ${e.step} happens after step ${a}`));
        arrows.append(el);
        this.arrows.push({ from: j, to: i, el });
      }
      if (e.op === "go" && e.child && firstOf.has(e.child) && this.lanes.has(e.child)) {
        const j = firstOf.get(e.child)!;
        arrows.append(s("path", { d: `M${x(i) + BOX_W / 2},${mid(e.g)} L${x(i) + BOX_W / 2},${mid(e.child)} L${x(j)},${mid(e.child)}`, class: "spawn" },
          s("title", {}, `${e.g} started ${e.child}`)));
      }
    });

    // Step boxes, on top of the lane backgrounds and under the arrows.
    const boxes = s("g", { class: "boxes" });
    this.events.forEach((e, i) => {
      const y = laneY(e.g) + (LANE_H - BOX_H) / 2;
      const g = s("g", { class: "step", "data-testid": `step-box-${e.step}`, "data-step": e.step },
        s("rect", { x: x(i), y, width: BOX_W, height: BOX_H, rx: 3, fill: categoryColor[category(e.op)] }),
        s("text", { x: x(i) + BOX_W / 2, y: y + 15, "text-anchor": "middle" }, opLabel(e.op)),
        s("title", {}, `step ${e.step}: ${e.g} ${this.callText(e)} ${posText(e.defer ?? e.pos)}${e.defer && e.pos ? `, run as the function returned at line ${e.pos.line}` : ""}`));
      g.addEventListener("click", () => this.moveTo(i, true));
      boxes.append(g);
      this.boxes.push(g);
    });
    svg.append(boxes, arrows);
    this.cursor = s("line", { x1: 0, y1: RULER_H, x2: 0, y2: height, class: "cursor", visibility: "hidden" });
    svg.append(this.cursor);
    this.scroller.append(svg);
  }

  // lifetimes returns, per goroutine, the range of event indices it is
  // alive over.
  private lifetimes(): Map<string, [number, number]> {
    const n = this.events.length;
    const idx = (step: number, fallback: number): number => {
      if (step < 0) return fallback;
      const i = this.indexOfStep.get(step);
      return i === undefined ? fallback : i;
    };
    const out = new Map<string, [number, number]>();
    for (const g of this.trace!.goroutines ?? []) {
      const from = g.created < 0 ? 0 : idx(g.created, 0) + 1;
      const to = g.exited < 0 ? n - 1 : idx(g.exited, n - 1);
      if (from <= to) out.set(g.id, [from, to]);
    }
    return out;
  }

  // blocked returns, per goroutine, runs of event indices during which it
  // was alive but not enabled. The enabled set at a step is the decision's
  // alternatives where there was a decision, and otherwise just the
  // goroutine that ran, since heddle records a decision wherever more than
  // one goroutine could run.
  private blocked(life: Map<string, [number, number]>): Map<string, [number, number][]> {
    const out = new Map<string, [number, number][]>();
    const n = this.events.length;
    for (const [g, [from, to]] of life) {
      const runs: [number, number][] = [];
      let start = -1;
      let lastActive = from - 1;
      for (let i = from; i <= to + 1; i++) {
        let isBlocked = false;
        if (i <= to) {
          const e = this.events[i]!;
          const choice = this.decisionsAt.get(e.step)?.find((d) => d.kind === "goroutine");
          const enabled = choice?.of ?? [e.g];
          isBlocked = e.g !== g && !enabled.includes(g);
          if (!isBlocked) lastActive = i;
        }
        if (isBlocked && start < 0) start = i;
        if (!isBlocked && start >= 0) {
          runs.push([start, i - 1]);
          start = -1;
        }
      }
      // A goroutine blocked when the run ended stays shaded from the last
      // step it could run through the end column.
      const final = this.trace!.verdict?.goroutines?.find((v) => v.id === g);
      if (final?.state === "blocked" && to === n - 1) {
        while (runs.length > 0 && runs[runs.length - 1]![0] > lastActive) runs.pop();
        runs.push([lastActive + 1, n]);
      }
      if (runs.length) out.set(g, runs);
    }
    return out;
  }

  private renderVerdict(): void {
    clear(this.verdict);
    clear(this.waitFor);
    clear(this.historyPanel);
    this.historyPanel.hidden = true;
    this.history = null;
    const v = this.trace!.verdict;
    if (!v) {
      this.verdict.append(h("p", { class: "muted" }, "No verdict recorded."));
      return;
    }
    this.verdict.append(
      h("p", {}, h("span", { class: `verdict-kind verdict-${v.kind}`, "data-testid": "verdict-kind" }, v.kind), " ", v.message ?? ""),
      h("ul", { class: "verdict-goroutines" }, ...(v.goroutines ?? []).map((g) =>
        h("li", {}, h("b", {}, g.id), ` ${stateText(g)} `, h("span", { class: "pos", title: g.pos?.file ?? "" }, posText(g.pos))))),
    );
    if (v.kind === "deadlock" || v.kind === "lockcycle") this.renderWaitFor();
    if (v.history?.length) {
      this.history = new HistoryView(v.history, (step) => {
        // The call's step, or the first step after it: a call between steps.
        const i = this.events.findIndex((e) => e.step >= step);
        this.moveTo(i < 0 ? this.events.length - 1 : i, true);
      });
      this.historyPanel.append(this.history.el);
      this.historyPanel.hidden = false;
    }
  }

  // renderWaitFor draws who waits for what at the end of a deadlocked run:
  // goroutine → object it is blocked on → goroutine holding it.
  private renderWaitFor(): void {
    const v = this.trace!.verdict!;
    const holders = new Map<string, Set<string>>();
    for (const e of this.events) {
      if (!e.obj) continue;
      if (acquires.has(e.op)) {
        const set = holders.get(e.obj) ?? new Set<string>();
        set.add(e.g);
        holders.set(e.obj, set);
      } else if (releases.has(e.op)) {
        holders.get(e.obj)?.delete(e.g);
      }
    }
    const cycle = v.cycle ?? [];
    const waits: { g: string; obj: string; op: string; expr?: string; owners: string[] }[] = [];
    for (const g of v.goroutines ?? []) {
      if (!g.obj) continue;
      let owners = [...(holders.get(g.obj) ?? [])].filter((o) => o !== g.id);
      const at = cycle.indexOf(g.id);
      if (owners.length === 0 && at >= 0) owners = [cycle[(at + 1) % cycle.length]!];
      waits.push({ g: g.id, obj: g.obj, op: g.op ?? "wait", ...(g.expr ? { expr: g.expr } : {}), owners });
    }
    const gs: string[] = [];
    for (const w of waits) for (const g of [w.g, ...w.owners]) if (!gs.includes(g)) gs.push(g);
    if (gs.length === 0) return;

    const W = 420, H = 300, cx = W / 2, cy = H / 2 + 10, R = 110;
    const at = new Map<string, { x: number; y: number }>();
    gs.forEach((g, i) => {
      const a = -Math.PI / 2 + (2 * Math.PI * i) / gs.length;
      at.set(g, { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a) });
    });
    const svg = s("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "waitfor-svg", "data-testid": "waitfor-graph" },
      s("defs", {}, s("marker", { id: "wf-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto" },
        s("path", { d: "M0,0 L10,5 L0,10 z" }))));
    const inCycle = (a: string, b: string): boolean => {
      const i = cycle.indexOf(a);
      return i >= 0 && cycle[(i + 1) % cycle.length] === b;
    };
    // Arrows stop at the border of what they point to: a goroutine's circle
    // or an object's box.
    const OBJ_W = 38, OBJ_H = 15, G_R = 21;
    const edge = (x1: number, y1: number, x2: number, y2: number, toObject: boolean, cls: string, from: string, to: string, label: string): void => {
      const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
      const shrink = toObject ? len * Math.min(OBJ_W / Math.abs(dx || 1e-9), OBJ_H / Math.abs(dy || 1e-9)) + 2 : G_R + 2;
      const ex = x2 - (dx / len) * shrink, ey = y2 - (dy / len) * shrink;
      svg.append(s("line", { x1, y1, x2: ex, y2: ey, class: cls, "marker-end": "url(#wf-head)", "data-testid": "waitfor-edge", "data-from": from, "data-to": to },
        s("title", {}, label)));
    };
    const objs: { id: string; x: number; y: number }[] = [];
    for (const w of waits) {
      const a = at.get(w.g)!;
      let ox: number, oy: number;
      const b = w.owners.length ? at.get(w.owners[0]!)! : null;
      if (b) {
        // Offset to the left of a→b, so that two goroutines waiting on each
        // other get their objects on opposite sides.
        const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
        ox = (a.x + b.x) / 2 + (dy / len) * 46;
        oy = (a.y + b.y) / 2 - (dx / len) * 46;
      } else {
        // Nothing holds it (a WaitGroup, a channel): put it beside the waiter.
        ox = a.x + (a.x >= cx ? 95 : -95);
        oy = a.y;
      }
      const red = w.owners.some((o) => inCycle(w.g, o));
      edge(a.x, a.y, ox, oy, true, red ? "wf-edge wf-cycle" : "wf-edge", w.g, w.obj, `${w.g} ${blockedText(w.op, w.expr ?? this.objects.get(w.obj)?.name)}`);
      for (const o of w.owners) {
        const b2 = at.get(o)!;
        edge(ox, oy, b2.x, b2.y, false, inCycle(w.g, o) ? "wf-edge wf-cycle" : "wf-edge", w.obj, o, `${this.objects.get(w.obj)?.name ?? w.obj} is held by ${o}`);
      }
      objs.push({ id: w.obj, x: ox, y: oy });
    }
    for (const o of objs) {
      const kind = this.objects.get(o.id)?.kind ?? "object";
      svg.append(s("g", { class: "wf-obj", "data-testid": `waitfor-obj-${o.id}` },
        s("rect", { x: o.x - OBJ_W, y: o.y - OBJ_H, width: 2 * OBJ_W, height: 2 * OBJ_H, rx: 4 }),
        s("text", { x: o.x, y: o.y - 2, "text-anchor": "middle" }, this.objects.get(o.id)?.name ?? o.id),
        s("text", { x: o.x, y: o.y + 10, "text-anchor": "middle", class: "wf-kind" }, kind)));
    }
    for (const [g, p] of at) {
      svg.append(s("g", { class: cycle.includes(g) ? "wf-g wf-g-cycle" : "wf-g", "data-testid": `waitfor-g-${g}` },
        s("circle", { cx: p.x, cy: p.y, r: G_R }),
        s("text", { x: p.x, y: p.y + 4, "text-anchor": "middle" }, g)));
    }
    this.waitFor.append(h("h4", {}, "Wait-for graph at the end"), svg);
  }

  // showLegend shows the legend's items for what the lanes draw, and only those: the
  // operations' colours present, blocked spans, end states, go arrows, happens-before arrows,
  // decisions.
  private showLegend(): void {
    const drawn = new Set<string>(["cursor"]);
    for (const e of this.events) drawn.add(`op-${category(e.op)}`);
    const svg = this.scroller;
    if (svg.querySelector(".blocked")) drawn.add("blocked");
    if (svg.querySelector(".end-state")) drawn.add("end");
    if (svg.querySelector(".spawn")) drawn.add("spawn");
    if (svg.querySelector(".hb")) drawn.add("hb");
    if (svg.querySelector(".decision-mark")) drawn.add("decision");
    for (const el of this.legendEl.querySelectorAll<HTMLElement>(".lg-item")) {
      el.hidden = !drawn.has(el.dataset["testid"]!.replace(/^legend-/, ""));
    }
  }

  // callText says step e as the CLI's interleaving table does: from.mu.Lock(), <-done blocks,
  // go G1.2, defer wg.Done().
  private callText(e: TraceEvent): string {
    const op = this.trace?.verdict?.history?.find((o) => o.callStep === e.step || o.returnStep === e.step);
    if (op && (e.op === "lin.call" || e.op === "lin.return")) {
      return e.op === "lin.call" ? `call ${op.input}` : `return ${op.input} -> ${op.output ?? ""}`;
    }
    return stepText(e, this.names);
  }

  // names names the trace's objects as the program does.
  private readonly names: Names = {
    name: (obj) => this.objects.get(obj)?.name,
    kind: (obj) => this.objects.get(obj)?.kind,
  };

  private renderDetail(): void {
    clear(this.detail);
    const n = this.events.length;
    this.counter.textContent = n ? `step ${this.selected === null ? "–" : this.events[this.selected]!.step} (steps ${this.events[0]!.step}–${this.events[n - 1]!.step})` : "";
    if (this.selected === null) {
      this.detail.append(h("p", { class: "muted" }, n ? "Press → or j to step through the trace." : "No steps."));
      clear(this.source);
      return;
    }
    const e = this.events[this.selected]!;
    const obj = e.obj ? this.objects.get(e.obj) : undefined;
    const dl = h("dl", {},
      h("dt", {}, "step"), h("dd", { "data-testid": "step-index" }, e.step),
      h("dt", {}, "goroutine"), h("dd", { "data-testid": "step-goroutine" }, e.g),
      h("dt", {}, "op"), h("dd", { "data-testid": "step-op", title: e.op }, h("span", { class: "op-chip", "data-cat": category(e.op) }, this.callText(e))),
    );
    // A deferred call is shown at its defer statement, as the CLI shows it; it ran where its
    // function returned.
    const at = e.defer ?? e.pos;
    if (e.defer && e.pos) dl.append(h("dt", {}, "deferred"), h("dd", { "data-testid": "step-defer" }, `runs as the function returns, at line ${e.pos.line}`));
    if (e.obj) dl.append(h("dt", {}, "object"), h("dd", { "data-testid": "step-obj" }, e.expr ?? obj?.name ?? e.obj, obj ? ` (${obj.kind} ${e.obj}${obj.pos ? `, ${posText(obj.pos)}` : ""})` : ""));
    if (e.child) dl.append(h("dt", {}, "started"), h("dd", {}, e.child));
    if (e.with) dl.append(h("dt", {}, "with"), h("dd", {}, e.with));
    if (at) {
      dl.append(h("dt", {}, "source"), h("dd", { "data-testid": "step-pos", title: at.file }, basename(at.file), ":", h("span", { "data-testid": "step-line" }, at.line)));
    }
    if (e.after?.length) {
      const dd = h("dd", { "data-testid": "step-after" });
      e.after.forEach((a, i) => {
        if (i) dd.append(", ");
        const link = h("a", { href: "#", "data-testid": "step-after-link" }, `step ${a}`);
        link.addEventListener("click", (ev) => {
          ev.preventDefault();
          const j = this.indexOfStep.get(a);
          if (j !== undefined) this.moveTo(j, true);
        });
        dd.append(link);
      });
      dl.append(h("dt", {}, "after"), dd);
    }
    for (const d of this.decisionsAt.get(e.step) ?? []) {
      dl.append(h("dt", {}, "decision"), h("dd", { "data-testid": "step-decision" }, `${d.kind}: picked ${d.pick}${d.of ? ` of ${d.of.join(", ")}` : ""}`));
    }
    this.detail.append(dl);
    this.renderSource(e);
  }

  private renderSource(e: TraceEvent): void {
    const req = ++this.sourceRequest;
    const pos = e.defer ?? e.pos;
    if (!pos) {
      clear(this.source);
      this.source.append(h("p", { class: "muted" }, "No source position."));
      return;
    }
    const key = `${pos.file}:${pos.line}`;
    let p = this.snippets.get(key);
    if (!p) {
      p = this.api.source(pos.file, pos.line);
      this.snippets.set(key, p);
      p.catch(() => this.snippets.delete(key));
    }
    p.then((snip) => {
      if (req !== this.sourceRequest) return;
      clear(this.source);
      const pre = h("pre", {});
      snip.lines.forEach((text, i) => {
        const n = snip.start + i;
        pre.append(h("div", n === snip.line ? { class: "src-line current", "data-testid": "source-current" } : { class: "src-line" },
          h("span", { class: "ln" }, n), h("span", { class: "code" }, text || " ")));
      });
      this.source.append(h("div", { class: "src-file", title: snip.file }, basename(snip.file)), pre);
    }, (err: Error) => {
      if (req !== this.sourceRequest) return;
      clear(this.source);
      this.source.append(h("p", { class: "muted" }, `${pos.file}:${pos.line}: ${err.message}`));
    });
  }

  // moveTo selects event index i; fromUser says whether to tell the
  // debugger, which is not wanted when the debugger itself moved us.
  moveTo(i: number, fromUser: boolean): void {
    if (this.events.length === 0) return;
    i = Math.max(0, Math.min(this.events.length - 1, i));
    if (this.selected !== null) this.boxes[this.selected]?.classList.remove("selected");
    this.selected = i;
    const box = this.boxes[i];
    box?.classList.add("selected");
    for (const a of this.arrows) a.el.classList.toggle("active", a.from === i || a.to === i);
    if (this.cursor) {
      const cx = 4 + i * this.stepW + this.stepW / 2;
      this.cursor.setAttribute("x1", String(cx));
      this.cursor.setAttribute("x2", String(cx));
      this.cursor.setAttribute("visibility", "visible");
      const left = cx - this.scroller.clientWidth / 2;
      if (cx < this.scroller.scrollLeft + 40 || cx > this.scroller.scrollLeft + this.scroller.clientWidth - 40) {
        this.scroller.scrollLeft = Math.max(0, left);
      }
    }
    this.history?.mark(this.events[i]!.step);
    this.renderDetail();
    if (fromUser) this.events_.userSelected(this.events[i]!.step);
  }

  // gotoStep selects the event with the given step number, as asked by the
  // debugger.
  gotoStep(step: number): boolean {
    const i = this.indexOfStep.get(step);
    if (i === undefined) return false;
    this.moveTo(i, false);
    return true;
  }

  private step(delta: number): void {
    if (this.events.length === 0) return;
    if (this.selected === null) this.moveTo(delta > 0 ? 0 : this.events.length - 1, true);
    else this.moveTo(this.selected + delta, true);
  }

  private togglePlay(): void {
    if (this.playTimer) {
      this.stopPlay();
      return;
    }
    if (this.events.length === 0) return;
    if (this.selected === this.events.length - 1) this.moveTo(0, true);
    this.playButton.textContent = "⏸ Pause";
    this.playButton.dataset["playing"] = "true";
    this.playTimer = window.setInterval(() => {
      if (this.selected !== null && this.selected >= this.events.length - 1) {
        this.stopPlay();
        return;
      }
      this.step(1);
    }, PLAY_MS);
  }

  stopPlay(): void {
    if (this.playTimer) window.clearInterval(this.playTimer);
    this.playTimer = 0;
    this.playButton.textContent = "▶ Play";
    this.playButton.dataset["playing"] = "false";
  }

  // key handles the timeline's keyboard shortcuts and says whether it did.
  key(e: KeyboardEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    switch (e.key) {
      case "ArrowRight":
      case "j":
        this.step(1);
        return true;
      case "ArrowLeft":
      case "k":
        this.step(-1);
        return true;
      case " ":
        this.togglePlay();
        return true;
      case "Home":
        this.moveTo(0, true);
        return true;
      case "End":
        this.moveTo(this.events.length - 1, true);
        return true;
    }
    return false;
  }
}

// legend explains the timeline's marks, drawn as they are drawn in the lanes.
// endLabel is the short label of what a goroutine of the verdict was doing when the
// run ended: the operation it was blocked in, or its state (panicked, exited).
function endLabel(g: VerdictGoroutine): string {
  return g.state === "blocked" && g.op ? opLabel(g.op) : g.state ?? "?";
}

function legend(): HTMLElement {
  const swatch = (...children: SVGElement[]): SVGSVGElement => s("svg", { width: 30, height: 16, viewBox: "0 0 30 16", class: "legend-swatch" }, ...children);
  const item = (id: string, sw: SVGSVGElement, text: string): HTMLElement => h("span", { class: "lg-item", "data-testid": `legend-${id}` }, sw, text);
  const cats: [string, string][] = [["mutex", "lock"], ["channel", "channel"], ["wait", "wait group, cond, once"], ["goroutine", "go, exit, panic"], ["atomic", "atomic, sync.Map"], ["time", "sleep, timer"], ["choose", "heddle.Choose"], ["history", "call, return"], ["other", "other"]];
  return h("div", { class: "legend timeline-legend", "data-testid": "timeline-legend" },
    ...cats.map(([c, text]) => item(`op-${c}`, swatch(s("rect", { x: 4, y: 2, width: 22, height: 12, rx: 2, fill: categoryColor[c as keyof typeof categoryColor] })), text)),
    item("blocked", swatch(s("rect", { x: 1, y: 1, width: 28, height: 14, class: "blocked" })), "blocked: could not run"),
    item("end", swatch(s("g", { class: "end-state" }, s("rect", { x: 4, y: 2, width: 22, height: 12, rx: 2 }))), "where it was stuck when the run ended"),
    item("spawn", swatch(s("path", { d: "M2,3 L14,3 L14,13 L28,13", class: "spawn" })), "started a goroutine"),
    item("hb", swatch(s("path", { d: "M2,12 C12,12 16,4 26,4", class: "hb", "marker-end": "url(#hb-head)" })), "happens before"),
    item("decision", swatch(s("path", { d: "M15,3 L20,8 L15,13 L10,8 z", class: "decision-mark" })), "a scheduling decision"),
    item("cursor", swatch(s("line", { x1: 15, y1: 0, x2: 15, y2: 16, class: "cursor" })), "the selected step"));
}
