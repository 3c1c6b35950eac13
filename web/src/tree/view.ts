import { basename, clear, h } from "../dom";
import { category, categoryColor } from "../ops";
import type { PruneReason } from "../types";
import { BREADTH_H, DEPTH_W, isBug, lowerBound, type TreeModel, type VNode } from "./model";

// The elbow of an edge sits this far right of its parent, so that siblings
// share one vertical segment and labels get the long horizontal run.
const BEND = 18;
// A stub for a pruned alternative runs this fraction of the way to where a
// child would be.
const STUB = 0.45;

const reasonStyle: Record<PruneReason, { color: string; dash: number[]; text: string }> = {
  sleep: { color: "#2563eb", dash: [6, 4], text: "in the sleep set: an equivalent interleaving was explored already" },
  persistent: { color: "#8b95a1", dash: [2, 3], text: "not in the persistent set: independent of the steps explored here" },
  delayed: { color: "#d97706", dash: [9, 3, 2, 3], text: "delayed (ExitBlock-RW) until a later block touches what it touches" },
  bound: { color: "#7c3aed", dash: [4, 2], text: "beyond the preemption bound" },
  depth: { color: "#0f766e", dash: [1, 3], text: "below the depth bound of the portfolio's exhaustive search" },
};

const verdictColor = { bug: "#dc2626", ok: "#16a34a", aborted: "#6b7280", other: "#ea580c" };

// Below this zoom, labels would overlap and are not drawn.
const LABEL_ZOOM = 0.55;
const ENABLED_ZOOM = 1.3;
const MAX_LABELS = 3000;

type LeafKind = keyof typeof verdictColor;

function leafKind(v: VNode): LeafKind | null {
  const leaf = v.node?.leaf;
  if (!leaf) return null;
  if (isBug(leaf)) return "bug";
  if (leaf.verdict === "aborted") return "aborted";
  if (leaf.verdict === "ok") return "ok";
  return "other";
}

export interface TreeViewEvents {
  openBug(bug: number): void;
}

// TreeView draws a TreeModel on a canvas. Layout happens once per change of
// the model; a frame only transforms and draws the nodes in view, found by
// binary search in the per-depth columns, and skips those that would land
// on a pixel already drawn.
export class TreeView {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly detail: HTMLElement;
  private model: TreeModel | null = null;
  // Depth and breadth scale separately, so that a tree thousands of times
  // wider than deep can still be seen whole.
  private kx = 1;
  private ky = 1;
  private tx = 40;
  private ty = 0;
  private width = 0;
  private height = 0;
  private frame = 0;
  private relayoutTimer = 0;
  private lastLayoutAt = 0;
  private needsFit = true;
  private fittedSize = 0; // the tree's size when it was last fitted to the view
  // Until the user pans or zooms, the view refits when the canvas resizes.
  private userMoved = false;
  private selected: VNode | null = null;
  private painted = false;
  private readonly drawTimes = new Float64Array(256);
  private drawCount = 0;

  constructor(private readonly events: TreeViewEvents) {
    this.canvas = h("canvas", {
      "data-testid": "tree-canvas", tabindex: 0,
      title: "Drag to pan; wheel to zoom; Alt+wheel to spread siblings apart; Shift+wheel to scroll sideways",
    });
    this.detail = h("aside", { class: "tree-detail", "data-testid": "tree-detail" }, h("p", { class: "muted" }, "Click a node to see it; double-click to fold its subtree."));
    const ctx = this.canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("canvas 2d context unavailable");
    this.ctx = ctx;
    const button = (id: string, label: string, title: string, f: () => void): HTMLButtonElement => {
      const b = h("button", { "data-testid": id, title }, label);
      b.addEventListener("click", f);
      return b;
    };
    const toolbar = h("div", { class: "toolbar" },
      button("tree-fit", "Fit", "Zoom to show the whole tree", () => this.fit()),
      button("tree-root", "Root", "Go to the root at full size", () => this.home()),
      button("tree-expand-all", "Expand all", "Unfold every folded subtree", () => {
        this.model?.expandAll();
        this.requestDraw();
      }),
      h("span", { class: "legend" },
        h("span", { class: "lg lg-bug" }), "bug",
        h("span", { class: "lg lg-ok" }), "ok",
        h("span", { class: "lg lg-aborted" }), "aborted",
        h("span", { class: "lg lg-sleep" }), "sleep",
        h("span", { class: "lg lg-persistent" }), "persistent",
        h("span", { class: "lg lg-delayed" }), "delayed",
        h("span", { class: "lg lg-bound" }), "bound",
        h("span", { class: "lg lg-depth" }), "depth"),
    );
    const stage = h("div", { class: "tree-stage" }, this.canvas);
    this.el = h("section", { class: "view tree-view", "data-testid": "view-tree" }, toolbar, h("div", { class: "tree-body" }, stage, this.detail));
    new ResizeObserver(() => this.resize()).observe(stage);
    this.listen();
  }

  setModel(model: TreeModel | null): void {
    if (model === this.model) return;
    this.model = model;
    this.selected = null;
    this.needsFit = true;
    this.userMoved = false;
    this.showDetail();
    this.requestDraw();
  }

  // changed is called when nodes were added to the model.
  changed(): void {
    this.requestDraw();
  }

  stats(): { nodes: number; leaves: number; bugs: number } {
    return this.model ? this.model.stats() : { nodes: 0, leaves: 0, bugs: 0 };
  }

  // nodeAt returns where decision point id is drawn, in client
  // coordinates, or null if it is not laid out.
  nodeAt(id: number): { x: number; y: number } | null {
    const v = this.model?.byId.get(id);
    if (!v || this.model!.laidOut < 0) return null;
    const rect = this.canvas.getBoundingClientRect();
    return { x: rect.left + v.x * this.kx + this.tx, y: rect.top + v.y * this.ky + this.ty };
  }

  recentDrawTimes(): number[] {
    const n = Math.min(this.drawCount, this.drawTimes.length);
    return Array.from(this.drawTimes.subarray(0, n));
  }

  requestDraw(): void {
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.render());
  }

  private resize(): void {
    const rect = this.canvas.parentElement!.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.width = rect.width;
    this.height = rect.height;
    this.canvas.width = Math.max(1, Math.round(rect.width * dpr));
    this.canvas.height = Math.max(1, Math.round(rect.height * dpr));
    this.canvas.style.width = `${rect.width}px`;
    this.canvas.style.height = `${rect.height}px`;
    if (!this.userMoved && !this.needsFit) this.fit();
    this.requestDraw();
  }

  private render(): void {
    this.frame = 0;
    const m = this.model;
    if (m && m.version !== m.laidOut) {
      // While a tree streams in, lay it out at most every few times the
      // last layout took, so that layout cannot eat every frame.
      const wait = Math.max(100, 4 * m.lastLayoutMs) - (performance.now() - this.lastLayoutAt);
      if (m.laidOut < 0 || wait <= 0) {
        m.layout();
        this.lastLayoutAt = performance.now();
        // Until the user pans or zooms, a tree that grows is refitted, so that a live
        // exploration's new nodes are on screen.
        const grew = !this.userMoved && m.byId.size !== this.fittedSize;
        if ((this.needsFit || grew) && m.byId.size > 0 && this.width > 100) {
          this.fit();
          this.needsFit = false;
          this.fittedSize = m.byId.size;
        }
      } else if (this.relayoutTimer === 0) {
        this.relayoutTimer = window.setTimeout(() => {
          this.relayoutTimer = 0;
          this.requestDraw();
        }, wait);
      }
    }
    this.draw();
  }

  // fit shows the whole tree: at one scale if it stays readable, and
  // otherwise squeezed across its breadth more than along its depth.
  private fit(): void {
    const m = this.model;
    if (!m || this.width === 0) return;
    const pad = 40;
    const fx = (this.width - 2 * pad) / (m.extent.x1 - m.extent.x0 + DEPTH_W * 0.6);
    const fy = (this.height - 2 * pad) / (m.extent.y1 - m.extent.y0 + BREADTH_H * 2);
    const k = Math.min(2, fx, fy);
    if (k >= 0.35) {
      this.kx = this.ky = k;
    } else {
      this.kx = Math.max(Math.min(1, fx), 0.0005);
      this.ky = Math.max(Math.min(1, fy), 0.0005);
    }
    this.tx = pad - m.extent.x0 * this.kx;
    this.ty = (this.height - (m.extent.y1 + m.extent.y0) * this.ky) / 2;
    this.requestDraw();
  }

  // focus centres decision point id at full size and selects it.
  focus(id: number): boolean {
    const v = this.model?.byId.get(id);
    if (!v || this.model!.laidOut < 0) return false;
    this.userMoved = true;
    this.kx = this.ky = 1;
    this.tx = this.width / 2 - v.x;
    this.ty = this.height / 2 - v.y;
    this.select(v);
    return true;
  }

  private home(): void {
    this.userMoved = true;
    const root = this.model?.roots[0];
    this.kx = this.ky = 1;
    this.tx = 40;
    this.ty = this.height / 2 - (root ? root.y : 0);
    this.requestDraw();
  }

  private draw(): void {
    const t0 = performance.now();
    const { ctx, kx, ky, tx, ty } = this;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, this.width, this.height);
    const m = this.model;
    if (!m || m.columns.length === 0) {
      ctx.fillStyle = "#6b7280";
      ctx.font = "14px system-ui, sans-serif";
      ctx.fillText(m ? "Waiting for the first decision…" : "No schedule tree loaded.", 24, 32);
      return;
    }
    const sx = (x: number): number => x * kx + tx;
    const sy = (y: number): number => y * ky + ty;
    const wx0 = -tx / kx, wx1 = (this.width - tx) / kx;
    const margin = 12 / ky;
    const wy0 = -ty / ky - margin, wy1 = (this.height - ty) / ky + margin;
    const c0 = Math.max(0, Math.floor(wx0 / DEPTH_W));
    const c1 = Math.min(m.columns.length - 1, Math.floor(wx1 / DEPTH_W) + 1);
    const bend = Math.min(BEND * Math.max(kx, 0.3), DEPTH_W * kx * 0.3);
    const small = ky * BREADTH_H < 6;
    const k = Math.min(kx, ky);

    const edges = new Path2D();
    const stubs: Record<PruneReason, Path2D> = { sleep: new Path2D(), persistent: new Path2D(), delayed: new Path2D(), bound: new Path2D(), depth: new Path2D() };
    const inner = new Path2D();
    const leaves: Record<LeafKind, Path2D> = { bug: new Path2D(), ok: new Path2D(), aborted: new Path2D(), other: new Path2D() };
    const folded = new Path2D();
    const labels: { x: number; y: number; text: string; color: string; align: CanvasTextAlign; font: string }[] = [];
    const wantLabels = ky >= LABEL_ZOOM && kx >= LABEL_ZOOM;
    const r = small ? 1.5 : Math.max(2, Math.min(5, 5 * ky));

    for (let c = c0; c <= c1; c++) {
      const col = m.columns[c]!;
      const lo = lowerBound(col.ys, wy0 - col.reach);
      const hi = lowerBound(col.ys, wy1 + col.reach);
      let lastPy = NaN, lastCy = NaN, lastNodeY = NaN;
      for (let i = lo; i < hi; i++) {
        const v = col.nodes[i]!;
        const p = v.parent;
        const cy = Math.round(sy(v.y));
        const cx = sx(v.x);
        if (p && Math.max(v.y, p.y) >= wy0 && Math.min(v.y, p.y) <= wy1) {
          const py = Math.round(sy(p.y));
          // Edges that would retrace pixels already drawn are skipped, which
          // keeps a zoomed-out frame proportional to the screen, not the tree.
          if (py !== lastPy || cy !== lastCy) {
            lastPy = py;
            lastCy = cy;
            const px = sx(p.x);
            const path = v.kind === "pruned" ? stubs[v.pruned!.reason] : edges;
            path.moveTo(px, py);
            path.lineTo(px + bend, py);
            path.lineTo(px + bend, cy);
            const end = v.kind === "pruned" ? px + bend + (cx - px - bend) * STUB : cx;
            path.lineTo(end, cy);
            if (v.kind === "pruned") {
              path.moveTo(end, cy - 4 * Math.min(1, k));
              path.lineTo(end, cy + 4 * Math.min(1, k));
            }
            if (wantLabels && labels.length < MAX_LABELS && cy >= -20 && cy <= this.height + 20) {
              if (v.kind === "pruned") {
                labels.push({ x: px + bend + 4, y: cy - 4, text: `${v.pruned!.g} · ${v.pruned!.reason}`, color: reasonStyle[v.pruned!.reason].color, align: "left", font: "italic 10px system-ui, sans-serif" });
              } else if (v.node) {
                labels.push({ x: px + bend + 4, y: cy - 4, text: edgeLabel(v), color: categoryColor[category(v.node.op ?? "")], align: "left", font: "11px ui-monospace, monospace" });
              }
            }
          }
        }
        if (v.kind !== "node" || v.y < wy0 || v.y > wy1 || cy === lastNodeY) continue;
        lastNodeY = cy;
        const lk = leafKind(v);
        if (v.collapsed) {
          folded.moveTo(cx - r, cy - r * 1.4);
          folded.lineTo(cx + r * 1.6, cy);
          folded.lineTo(cx - r, cy + r * 1.4);
          folded.closePath();
          if (wantLabels) labels.push({ x: cx + r * 2 + 3, y: cy + 4, text: `+${v.hidden}`, color: "#374151", align: "left", font: "bold 11px system-ui, sans-serif" });
        } else if (lk === null) {
          addDot(inner, cx, cy, r, small);
        } else {
          addLeaf(leaves[lk], lk, cx, cy, small ? 1.5 : Math.max(2.5, Math.min(6, 6 * ky)), small);
          // A leaf with pruned stubs has its label under the stubs' elbow.
          if (wantLabels) labels.push({ x: cx + 10, y: cy + (v.children.length ? 15 : 4), text: leafLabel(v), color: verdictColor[lk], align: "left", font: "11px system-ui, sans-serif" });
        }
        if (ky >= ENABLED_ZOOM && kx >= LABEL_ZOOM && v.node?.enabled && v.node.enabled.length > 0 && v.children.length > 0) {
          labels.push({ x: cx - 6, y: cy + 13, text: `{${v.node.enabled.join(" ")}}`, color: "#6b7280", align: "right", font: "9px ui-monospace, monospace" });
        }
      }
    }

    ctx.lineWidth = small ? 1 : 1.25;
    ctx.strokeStyle = "#9aa5b1";
    ctx.stroke(edges);
    for (const reason of Object.keys(stubs) as PruneReason[]) {
      ctx.strokeStyle = reasonStyle[reason].color;
      if (!small) ctx.setLineDash(reasonStyle[reason].dash);
      ctx.stroke(stubs[reason]);
    }
    ctx.setLineDash([]);
    ctx.fillStyle = "#334155";
    ctx.fill(inner);
    ctx.fillStyle = "#475569";
    ctx.fill(folded);
    ctx.fillStyle = verdictColor.ok;
    ctx.fill(leaves.ok);
    ctx.fillStyle = verdictColor.other;
    ctx.fill(leaves.other);
    ctx.strokeStyle = verdictColor.aborted;
    ctx.lineWidth = small ? 1 : 2;
    ctx.stroke(leaves.aborted);
    ctx.fillStyle = verdictColor.bug;
    ctx.fill(leaves.bug);
    if (!small) {
      ctx.strokeStyle = "rgba(220, 38, 38, 0.35)";
      ctx.lineWidth = 4;
      ctx.stroke(leaves.bug);
    }
    if (this.selected && this.selected.depth >= 0) {
      const v = this.selected;
      ctx.strokeStyle = "#2563eb";
      ctx.lineWidth = 2;
      ctx.beginPath();
      const x = v.kind === "pruned" && v.parent ? sx(v.parent.x) + bend + (sx(v.x) - sx(v.parent.x) - bend) * STUB : sx(v.x);
      ctx.arc(x, sy(v.y), 9, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.textBaseline = "alphabetic";
    for (const l of labels) {
      ctx.font = l.font;
      ctx.fillStyle = l.color;
      ctx.textAlign = l.align;
      ctx.fillText(l.text, l.x, l.y);
    }
    ctx.textAlign = "left";

    const ms = performance.now() - t0;
    this.drawTimes[this.drawCount % this.drawTimes.length] = ms;
    this.drawCount++;
    if (!this.painted && m.byId.size > 0) {
      this.painted = true;
      performance.mark("heddle-tree-first-paint");
    }
  }

  // hit finds the node whose dot, or whose incoming edge label, is at a
  // point on the canvas.
  private hit(px: number, py: number): VNode | null {
    const m = this.model;
    if (!m) return null;
    const wx = (px - this.tx) / this.kx;
    const wy = (py - this.ty) / this.ky;
    const c = Math.ceil((wx - 12 / this.kx) / DEPTH_W);
    const col = m.columns[c];
    if (!col || wx < c * DEPTH_W - DEPTH_W + BEND) return null;
    const i = lowerBound(col.ys, wy);
    let best: VNode | null = null;
    let bestD = Math.max(BREADTH_H / 2, 6 / this.ky);
    for (const j of [i - 1, i]) {
      const v = col.nodes[j];
      if (v && Math.abs(v.y - wy) <= bestD) {
        best = v;
        bestD = Math.abs(v.y - wy);
      }
    }
    return best;
  }

  private listen(): void {
    const c = this.canvas;
    let drag: { x: number; y: number; moved: boolean; id: number } | null = null;
    c.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, moved: false, id: e.pointerId };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moved = true;
      this.userMoved = true;
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.tx += dx;
      this.ty += dy;
      this.requestDraw();
    });
    c.addEventListener("pointerup", (e) => {
      if (!drag) return;
      const wasClick = !drag.moved;
      c.releasePointerCapture(drag.id);
      drag = null;
      if (!wasClick) return;
      const rect = c.getBoundingClientRect();
      const v = this.hit(e.clientX - rect.left, e.clientY - rect.top);
      this.select(v);
      const bug = v?.node?.leaf?.bug;
      if (bug !== undefined && bug !== null) this.events.openBug(bug);
    });
    c.addEventListener("dblclick", (e) => {
      const rect = c.getBoundingClientRect();
      const v = this.hit(e.clientX - rect.left, e.clientY - rect.top);
      if (v && v.kind === "node" && this.model) {
        this.model.toggle(v);
        this.requestDraw();
        this.showDetailSoon();
      }
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMoved = true;
      const rect = c.getBoundingClientRect();
      const mx = e.clientX - rect.left, my = e.clientY - rect.top;
      const scale = e.deltaMode === 1 ? 40 : 1;
      if (e.shiftKey && !e.ctrlKey) {
        this.tx -= e.deltaY * scale;
      } else {
        // Alt zooms across the breadth only, to spread out crowded siblings.
        const f = Math.exp(-e.deltaY * scale * 0.0015);
        const ky = Math.min(4, Math.max(0.0005, this.ky * f));
        if (!e.altKey) {
          const kx = Math.min(4, Math.max(0.0005, this.kx * f));
          this.tx = mx - (mx - this.tx) * (kx / this.kx);
          this.kx = kx;
        }
        this.ty = my - (my - this.ty) * (ky / this.ky);
        this.ky = ky;
      }
      this.requestDraw();
    }, { passive: false });
  }

  private select(v: VNode | null): void {
    this.selected = v;
    this.showDetail();
    this.requestDraw();
  }

  private showDetail(): void {
    const v = this.selected;
    const d = this.detail;
    clear(d);
    if (!v || !this.model) {
      d.append(h("p", { class: "muted" }, "Click a node to see it; double-click to fold its subtree."));
      return;
    }
    if (v.kind === "pruned") {
      const p = v.pruned!;
      d.append(
        h("h3", {}, `Pruned: ${p.g}`),
        h("p", { "data-testid": "tree-detail-reason" }, h("span", { class: `reason reason-${p.reason}` }, p.reason), " ", reasonStyle[p.reason].text),
        h("p", { class: "muted" }, `Alternative at decision point #${v.id}.`),
      );
      return;
    }
    const n = v.node!;
    const path = this.model.path(v).filter((x) => x.node?.g);
    const dl = h("dl", {},
      h("dt", {}, "step"), h("dd", { "data-testid": "tree-detail-edge" }, n.g ? edgeLabel(v) + (n.obj ? ` ${n.obj}` : "") : "(root)"),
      h("dt", {}, "enabled"), h("dd", {}, (n.enabled ?? []).join(", ") || "none"),
    );
    if (n.pos) dl.append(h("dt", {}, "source"), h("dd", { title: n.pos.file }, `${n.pos.file}:${n.pos.line}`));
    if (n.pruned?.length) dl.append(h("dt", {}, "pruned"), h("dd", {}, n.pruned.map((p) => `${p.g} (${p.reason})`).join(", ")));
    if (n.leaf) dl.append(h("dt", {}, "verdict"), h("dd", { "data-testid": "tree-detail-verdict" }, n.leaf.verdict + (n.leaf.bug !== undefined && n.leaf.bug !== null ? ` (bug ${n.leaf.bug})` : "")));
    d.append(h("h3", {}, `Decision point #${n.id}`), dl);
    d.append(h("p", { class: "path", title: "the goroutines picked from the root to here" }, path.length ? path.map((x) => x.node!.g).join(" → ") : "at the root"));
    const bug = n.leaf?.bug;
    if (bug !== undefined && bug !== null) {
      const b = h("button", { "data-testid": "tree-open-bug" }, `Open timeline of bug ${bug}`);
      b.addEventListener("click", () => this.events.openBug(bug));
      d.append(b);
    }
    if (v.children.length > 0) {
      const b = h("button", { "data-testid": "tree-toggle" }, v.collapsed ? `Unfold ${v.hidden} nodes` : "Fold subtree");
      b.addEventListener("click", () => {
        this.model?.toggle(v);
        this.requestDraw();
        this.showDetailSoon();
      });
      d.append(b);
    }
  }

  // The hidden-node count is known after the next layout.
  private showDetailSoon(): void {
    requestAnimationFrame(() => requestAnimationFrame(() => this.showDetail()));
  }
}

function edgeLabel(v: VNode): string {
  const n = v.node!;
  const where = n.pos ? ` ${basename(n.pos.file)}:${n.pos.line}` : "";
  return `${n.g ?? ""} ${n.op ?? ""}${where}`;
}

function leafLabel(v: VNode): string {
  const leaf = v.node!.leaf!;
  return leaf.bug !== undefined && leaf.bug !== null ? `${leaf.verdict} · bug ${leaf.bug}` : leaf.verdict;
}

function addDot(p: Path2D, x: number, y: number, r: number, small: boolean): void {
  if (small) {
    p.rect(x - r, y - r, 2 * r, 2 * r);
    return;
  }
  p.moveTo(x + r, y);
  p.arc(x, y, r, 0, 2 * Math.PI);
}

function addLeaf(p: Path2D, kind: LeafKind, x: number, y: number, r: number, small: boolean): void {
  if (small) {
    p.rect(x - r, y - r, 2 * r, 2 * r);
    return;
  }
  switch (kind) {
    case "bug":
      p.moveTo(x + r, y);
      p.arc(x, y, r, 0, 2 * Math.PI);
      break;
    case "ok":
      p.rect(x - r * 0.8, y - r * 0.8, r * 1.6, r * 1.6);
      break;
    case "aborted":
      p.moveTo(x - r, y - r);
      p.lineTo(x + r, y + r);
      p.moveTo(x + r, y - r);
      p.lineTo(x - r, y + r);
      break;
    case "other":
      p.moveTo(x, y - r);
      p.lineTo(x + r, y);
      p.lineTo(x, y + r);
      p.lineTo(x - r, y);
      p.closePath();
      break;
  }
}
