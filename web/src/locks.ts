import { hierarchy, tree as tidyTree } from "d3-hierarchy";
import { clear, h, posText, s } from "./dom";
import type { LockNode, LockTrees, LockWarning } from "./types";

const NODE_R = 17;
const DX = 46; // between siblings
const DY = 58; // between levels

interface Drawn {
  node: LockNode;
  g: string;
  number: number;
  path: string[]; // locks from the root down to and including this one
  el: SVGGElement;
}

// labelWidth is how wide a lock's node is drawn: a circle, widened into a pill to hold the
// lock's whole name in the nodes' 10px monospace, so that every lock reads as in source.
function labelWidth(name: string): number {
  return Math.max(2 * NODE_R, name.length * 6.1 + 12);
}

// pill draws a lock's node centred at x, y, as wide as its name needs.
function pill(x: number, y: number, name: string): SVGRectElement {
  const w = labelWidth(name);
  return s("rect", { x: x - w / 2, y: y - NODE_R, width: w, height: 2 * NODE_R, rx: NODE_R, class: "lock-shape" });
}

// LockView shows each goroutine's lock tree (nested acquisitions, numbered
// in preorder across trees as in the JPF paper's figure), the lock-order
// warnings with the nodes they involve, the inversions that gate locks
// suppressed, and the lock-order graph with its cycles.
export class LockView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private trees: LockTrees | null = null;
  private drawn: Drawn[] = [];
  // label shows a lock by its name in the program, else its logical id.
  private label: (lock: string) => string = (l) => l;
  private warningEls: HTMLElement[] = [];

  constructor() {
    this.body = h("div", { class: "locks-body" });
    this.el = h("section", { class: "view locks-view", "data-testid": "view-locks" }, this.body);
    this.show(null);
  }

  warningCount(): number {
    return this.trees?.warnings?.length ?? 0;
  }

  show(trees: LockTrees | null): void {
    this.trees = trees;
    this.drawn = [];
    this.warningEls = [];
    clear(this.body);
    if (!trees) {
      this.body.append(h("p", { class: "muted pad", "data-testid": "locks-empty" }, "This exploration recorded no lock trees."));
      return;
    }
    const label = (l: string): string => trees.names?.[l] ?? l;
    this.label = label;
    const warnings = trees.warnings ?? [];
    const suppressed = trees.suppressed ?? [];
    const warnList = h("ol", { class: "warnings", "data-testid": "lock-warnings" });
    warnings.forEach((w, i) => {
      const li = h("li", { class: "warning", "data-testid": "lock-warning", "data-locks": w.locks.join(","), tabindex: 0 },
        h("b", {}, `${label(w.locks[0])} ↔ ${label(w.locks[1])}`), ": ",
        h("span", { class: "gpath" }, `${w.first.g} took ${w.first.path.map(label).join(" → ")}`), "; ",
        h("span", { class: "gpath" }, `${w.second.g} took ${w.second.path.map(label).join(" → ")}`));
      li.addEventListener("click", () => this.highlight(i));
      li.addEventListener("keydown", (e) => {
        if (e.key === "Enter") this.highlight(i);
      });
      warnList.append(li);
      this.warningEls.push(li);
    });
    const supList = h("ul", { class: "suppressed", "data-testid": "lock-suppressed" },
      ...suppressed.map((sp) => h("li", { "data-testid": "lock-suppressed-item" },
        ...(sp.ordered
          ? [`${sp.locks.map(label).join(" ↔ ")}: suppressed, the two nestings are `, h("b", {}, "ordered"), " by happens-before"]
          : [`${sp.locks.map(label).join(" ↔ ")}: suppressed by gate lock${sp.gates.length > 1 ? "s" : ""} `, h("b", {}, sp.gates.map(label).join(", "))]))));

    this.body.append(
      h("div", { class: "panel" },
        h("h3", {}, "Lock-order warnings ", h("span", { class: "count", "data-testid": "lock-warning-count" }, warnings.length)),
        warnings.length ? warnList : h("p", { class: "muted" }, "No lock-order inversions."),
        h("h4", {}, "Suppressed"),
        suppressed.length ? supList : h("p", { class: "muted" }, "None.")),
      this.renderTrees(trees),
      this.renderGraph(trees),
    );
    if (warnings.length) this.highlight(0);
  }

  private renderTrees(trees: LockTrees): HTMLElement {
    const wrap = h("div", { class: "panel" }, h("h3", {}, "Lock trees"));
    const row = h("div", { class: "lock-trees" });
    const gates = new Set((trees.suppressed ?? []).flatMap((sp) => sp.gates));
    let number = 0;
    for (const t of trees.trees ?? []) {
      const root = hierarchy<LockNode>(t.root, (n) => n.children ?? []);
      let widest = 0;
      root.each((n) => {
        if (n.depth > 0) widest = Math.max(widest, labelWidth(this.label(n.data.lock ?? "?")));
      });
      tidyTree<LockNode>().nodeSize([Math.max(DX, widest + 12), DY])(root);
      let x0 = Infinity, x1 = -Infinity;
      root.each((n) => {
        x0 = Math.min(x0, n.x ?? 0);
        x1 = Math.max(x1, n.x ?? 0);
      });
      const width = x1 - x0 + Math.max(2 * NODE_R, widest) + 40;
      const height = (root.height + 1) * DY;
      const ox = -x0 + Math.max(NODE_R, widest / 2) + 20, oy = 22;
      const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "lock-tree-svg" });
      for (const l of root.links()) {
        svg.append(s("line", { x1: (l.source.x ?? 0) + ox, y1: l.source.depth * DY + oy, x2: (l.target.x ?? 0) + ox, y2: l.target.depth * DY + oy, class: "lt-edge" }));
      }
      // Preorder numbering, continuing from the previous tree.
      root.eachBefore((n) => {
        const x = (n.x ?? 0) + ox, y = n.depth * DY + oy;
        if (n.depth === 0) {
          svg.append(s("g", { class: "lt-root" }, s("rect", { x: x - 24, y: y - 12, width: 48, height: 24, rx: 4 }), s("text", { x, y: y + 4, "text-anchor": "middle" }, t.g)));
          return;
        }
        number++;
        const lock = n.data.lock ?? "?";
        const path = n.ancestors().reverse().slice(1).map((a) => this.label(a.data.lock ?? "?"));
        const el = s("g", { class: gates.has(lock) && n.depth === 1 ? "lt-node lt-gate" : "lt-node", "data-testid": "lock-node", "data-g": t.g, "data-lock": lock, "data-number": number },
          pill(x, y, this.label(lock)),
          s("text", { x, y: y + 4, "text-anchor": "middle", class: "lt-label", "data-testid": "lock-label" }, this.label(lock)),
          s("text", { x: x + labelWidth(this.label(lock)) / 2 + 2, y: y - NODE_R + 4, class: "lt-number" }, number),
          s("title", {}, `${t.g}: ${path.join(" → ")}${n.data.pos ? ` at ${posText(n.data.pos)}` : ""}`));
        svg.append(el);
        this.drawn.push({ node: n.data, g: t.g, number, path, el });
      });
      row.append(h("figure", { class: "lock-tree", "data-testid": `lock-tree-${t.g}` }, svg, h("figcaption", {}, t.g)));
    }
    if (!(trees.trees ?? []).length) row.append(h("p", { class: "muted" }, "No goroutine took a lock."));
    wrap.append(row);
    return wrap;
  }

  // highlight marks the nodes a warning involves: the path each of the two
  // goroutines took, ending at the inverted pair.
  private highlight(i: number): void {
    const w: LockWarning | undefined = this.trees?.warnings?.[i];
    this.warningEls.forEach((el, j) => el.classList.toggle("active", j === i));
    for (const d of this.drawn) {
      const on = !!w && [w.first, w.second].some((p) => p.g === d.g && isPrefix(d.path, p.path));
      const end = on && w!.locks.includes(d.node.lock ?? "");
      d.el.classList.toggle("lt-on-path", on);
      d.el.classList.toggle("lt-inverted", end && on);
    }
  }

  private renderGraph(trees: LockTrees): HTMLElement {
    const g = trees.graph;
    const nodes = g.nodes ?? [];
    const edges = g.edges ?? [];
    const cycles = g.cycles ?? [];
    const cycleEdges = new Set<string>();
    for (const c of cycles) c.forEach((a, i) => cycleEdges.add(`${a}\u0000${c[(i + 1) % c.length]}`));
    const W = 420, H = 320, cx = W / 2, cy = H / 2, R = Math.min(W, H) / 2 - 40;
    const at = new Map<string, { x: number; y: number }>();
    nodes.forEach((n, i) => {
      const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, nodes.length);
      at.set(n, { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a) });
    });
    const svg = s("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "lock-graph-svg", "data-testid": "lock-graph" },
      s("defs", {},
        s("marker", { id: "lg-head", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto" }, s("path", { d: "M0,0 L10,5 L0,10 z", class: "lg-head" })),
        s("marker", { id: "lg-head-cycle", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto" }, s("path", { d: "M0,0 L10,5 L0,10 z", class: "lg-head-cycle" }))));
    const pair = new Set(edges.map((e) => `${e.from}\u0000${e.to}`));
    for (const e of edges) {
      const a = at.get(e.from), b = at.get(e.to);
      if (!a || !b) continue;
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      // Edges both ways between two locks bow apart so both stay visible.
      const bow = pair.has(`${e.to}\u0000${e.from}`) ? 22 : 0;
      const mx = (a.x + b.x) / 2 + (dy / len) * bow, my = (a.y + b.y) / 2 - (dx / len) * bow;
      const ex = b.x - ((b.x - mx) / Math.hypot(b.x - mx, b.y - my)) * 20, ey = b.y - ((b.y - my) / Math.hypot(b.x - mx, b.y - my)) * 20;
      const inCycle = cycleEdges.has(`${e.from}\u0000${e.to}`);
      svg.append(s("path", {
        d: `M${a.x},${a.y} Q${mx},${my} ${ex},${ey}`, class: inCycle ? "lg-edge lg-cycle" : "lg-edge",
        "marker-end": inCycle ? "url(#lg-head-cycle)" : "url(#lg-head)", "data-testid": inCycle ? "lock-graph-cycle-edge" : "lock-graph-edge",
      }, s("title", {}, `${this.label(e.from)} → ${this.label(e.to)} by ${(e.g ?? []).join(", ")}${e.pos ? ` at ${posText(e.pos)}` : ""}`)));
    }
    for (const [n, p] of at) {
      svg.append(s("g", { class: "lg-node", "data-testid": "lock-graph-node" }, pill(p.x, p.y, this.label(n)), s("text", { x: p.x, y: p.y + 4, "text-anchor": "middle", class: "lt-label", "data-testid": "lock-label" }, this.label(n)),
        s("title", {}, `${this.label(n)} (${n})`)));
    }
    return h("div", { class: "panel" },
      h("h3", {}, "Lock-order graph"),
      nodes.length ? svg : h("p", { class: "muted" }, "Empty."),
      h("h4", {}, "Cycles"),
      cycles.length
        ? h("ul", { "data-testid": "lock-cycles" }, ...cycles.map((c) => h("li", { "data-testid": "lock-cycle" }, [...c, c[0]].map(this.label).join(" → "))))
        : h("p", { class: "muted" }, "None."));
  }
}

function isPrefix(a: string[], b: string[]): boolean {
  return a.length <= b.length && a.every((x, i) => x === b[i]);
}
