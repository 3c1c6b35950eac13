import { clear, h } from "../dom";
import { bugNumber } from "../ops";
import { BREADTH_H, DEPTH_W, lowerBound, type TreeModel, type VNode } from "./model";
import { edgeLabel, paint, pruneStyle, reasonStyle, type Band, type Painted, type Transform } from "./paint";

export interface TreeViewEvents {
  openBug(bug: number): void;
}

interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

// What the pointer is over: a node or pruned stub, or a band of subtrees
// drawn as one.
type Target = { node: VNode } | { band: Band };

// The column width and row height, in pixels, at which edge labels can be
// read.
const READ_COLUMN = 130;
const READ_ROW = 15;

const noDetail = "Click a node to see it; double-click to fold its subtree. Hover for details; click a band to zoom into it.";

// TreeView draws a TreeModel on a canvas, with an overview of the whole
// tree beside it and a tooltip under the pointer, as a profiler's flame
// chart does: the overview shows where the detail view is (the brush) and
// moves it, the detail view shows the nodes in view, and subtrees too thin
// to draw node by node are drawn as bands. Layout happens once per change of
// the model; a frame visits only what is in view.
export class TreeView {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly overview: HTMLCanvasElement;
  private readonly octx: CanvasRenderingContext2D;
  // The overview's picture of the whole tree, drawn once per layout.
  private overviewImage: HTMLCanvasElement | null = null;
  private overviewKey = "";
  private overviewT: Transform = { kx: 1, ky: 1, tx: 0, ty: 0 };
  private brushDrag: { x0: number; y0: number; x1: number; y1: number; move: boolean } | null = null;
  private readonly tip: HTMLElement;
  private readonly detail: HTMLElement;
  // The legend names what the tree draws, and only that: it changes with the tree.
  private readonly legend = h("span", { class: "legend", "data-testid": "tree-legend" });
  private legendKey = "";
  private model: TreeModel | null = null;
  private kx = 1;
  private ky = 1;
  private tx = 40;
  private ty = 0;
  private width = 0;
  private height = 0;
  private ow = 0;
  private oh = 0;
  private frame = 0;
  private relayoutTimer = 0;
  private lastLayoutAt = 0;
  private needsFit = true;
  private fittedSize = 0; // the tree's size when it was last fitted to the view
  // Until the user pans or zooms, the view refits when the canvas resizes.
  private userMoved = false;
  private selected: VNode | null = null;
  private painted = false;
  private last: Painted = { bands: [], labels: [], bugMarks: 0, againMarks: 0, nodes: 0 };
  private readonly drawTimes = new Float64Array(256);
  private drawCount = 0;

  constructor(private readonly events: TreeViewEvents) {
    this.canvas = h("canvas", {
      "data-testid": "tree-canvas", tabindex: 0,
      "aria-label": "Schedule tree. Drag to pan; wheel to zoom; Alt+wheel to spread siblings apart; Shift+wheel to scroll sideways",
    });
    this.overview = h("canvas", {
      class: "tree-overview", "data-testid": "tree-overview",
      title: "The whole tree: drag the box to move the view, drag elsewhere to zoom into that part, click to go there",
    });
    this.tip = h("div", { class: "tree-tip", "data-testid": "tree-tip", hidden: true });
    this.detail = h("aside", { class: "tree-detail", "data-testid": "tree-detail" }, h("p", { class: "muted" }, noDetail));
    const ctx = this.canvas.getContext("2d", { alpha: false });
    const octx = this.overview.getContext("2d", { alpha: false });
    if (!ctx || !octx) throw new Error("canvas 2d context unavailable");
    this.ctx = ctx;
    this.octx = octx;
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
      this.legend);
    const main = h("div", { class: "tree-main" }, this.canvas, this.tip);
    const stage = h("div", { class: "tree-stage" }, main, this.overview);
    this.el = h("section", { class: "view tree-view", "data-testid": "view-tree" }, toolbar, h("div", { class: "tree-body" }, stage, this.detail));
    new ResizeObserver(() => this.resize()).observe(main);
    this.listen();
    this.listenOverview();
  }

  setModel(model: TreeModel | null): void {
    if (model === this.model) return;
    this.model = model;
    this.selected = null;
    this.needsFit = true;
    this.userMoved = false;
    this.overviewKey = "";
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

  // drawn describes the last frame, for tests: how many first runs of bugs
  // and repeated bug runs were marked, the bands, and the labels' boxes in
  // canvas pixels with the canvas's size.
  drawn(): { bugMarks: number; againMarks: number; nodes: number; bands: Box[]; labels: (Box & { text: string })[]; width: number; height: number } {
    const p = this.last;
    const bands = p.bands.map(({ x0, x1, y0, y1, size }) => ({ x0, x1, y0, y1, size }));
    return { bugMarks: p.bugMarks, againMarks: p.againMarks, nodes: p.nodes, bands, labels: p.labels, width: this.width, height: this.height };
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
    const dpr = window.devicePixelRatio || 1;
    const rect = this.canvas.parentElement!.getBoundingClientRect();
    this.width = rect.width;
    this.height = rect.height;
    this.canvas.width = Math.max(1, Math.round(rect.width * dpr));
    this.canvas.height = Math.max(1, Math.round(rect.height * dpr));
    this.canvas.style.width = `${rect.width}px`;
    this.canvas.style.height = `${rect.height}px`;
    const o = this.overview.getBoundingClientRect();
    this.ow = o.width;
    this.oh = o.height;
    this.overview.width = Math.max(1, Math.round(o.width * dpr));
    this.overview.height = Math.max(1, Math.round(o.height * dpr));
    if (!this.userMoved && !this.needsFit) this.readable(null);
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
        // Until the user pans or zooms, a tree that grows is refitted, following its newest
        // run, so that a live exploration's new nodes are on screen.
        const grew = !this.userMoved && m.byId.size !== this.fittedSize;
        if ((this.needsFit || grew) && m.byId.size > 0 && this.width > 100) {
          this.readable(this.needsFit ? null : m.newest);
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

  // fit shows the whole tree across the whole canvas: depth and breadth
  // each scaled to fill it, so that a shallow tree uses the full width and
  // a wide one the full height.
  private fit(): void {
    const m = this.model;
    if (!m || this.width === 0) return;
    const pad = 24;
    const fx = (this.width - 2 * pad) / (m.extent.x1 - m.extent.x0 + DEPTH_W * 0.75);
    const fy = (this.height - 2 * pad) / (m.extent.y1 - m.extent.y0 + BREADTH_H * 2);
    this.kx = Math.max(Math.min(2.5, fx), 0.0005);
    this.ky = Math.max(Math.min(2, fy), 0.0005);
    this.tx = pad - m.extent.x0 * this.kx;
    this.ty = (this.height - (m.extent.y1 + m.extent.y0) * this.ky) / 2;
    this.requestDraw();
  }

  // readable is the view a tree opens with: the whole tree if its labels
  // can be read that way, and otherwise, at a scale where they can, the
  // part around at (by default the first bug's run with the decisions that
  // led to it, or the root if no run found a bug), with the overview showing
  // where that is.
  private readable(at: VNode | null): void {
    this.fit();
    const m = this.model;
    if (!m || (this.kx * DEPTH_W >= READ_COLUMN && this.ky * BREADTH_H >= READ_ROW)) return;
    this.kx = Math.max(this.kx, READ_COLUMN / DEPTH_W);
    this.ky = Math.max(this.ky, READ_ROW / BREADTH_H);
    const v = at ?? m.bugs.values().next().value?.first ?? m.roots[0]!;
    this.tx = v.x * this.kx > this.width * 0.7 ? this.width * 0.7 - v.x * this.kx : 24 - m.extent.x0 * this.kx;
    this.ty = this.height / 2 - v.y * this.ky;
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

  // zoomTo shows the world rectangle [x0, x1] x [y0, y1] across the canvas.
  private zoomTo(x0: number, x1: number, y0: number, y1: number): void {
    this.userMoved = true;
    const pad = 24;
    this.kx = Math.max(0.0005, Math.min(2.5, (this.width - 2 * pad) / Math.max(x1 - x0, DEPTH_W)));
    this.ky = Math.max(0.0005, Math.min(2, (this.height - 2 * pad) / Math.max(y1 - y0, BREADTH_H)));
    this.tx = pad - x0 * this.kx;
    this.ty = this.height / 2 - ((y0 + y1) / 2) * this.ky;
    this.hideTip();
    this.requestDraw();
  }

  private draw(): void {
    const t0 = performance.now();
    const { ctx } = this;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, this.width, this.height);
    const m = this.model;
    if (!m || m.columns.length === 0) {
      ctx.fillStyle = "#6b7280";
      ctx.font = "14px system-ui, sans-serif";
      ctx.fillText(m ? "Waiting for the first decision…" : "No schedule tree loaded.", 24, 32);
      this.last = { bands: [], labels: [], bugMarks: 0, againMarks: 0, nodes: 0 };
      this.drawOverview();
      return;
    }
    this.last = paint(ctx, m, { kx: this.kx, ky: this.ky, tx: this.tx, ty: this.ty }, this.width, this.height, { labels: true, selected: this.selected });
    this.drawOverview();
    this.showLegend(m);

    const ms = performance.now() - t0;
    this.drawTimes[this.drawCount % this.drawTimes.length] = ms;
    this.drawCount++;
    if (!this.painted && m.byId.size > 0) {
      this.painted = true;
      performance.mark("heddle-tree-first-paint");
    }
  }

  // showLegend lists in the legend the kinds of marks the tree has, in plain words, each
  // beside a swatch drawn in the colour and shape the tree draws it with.
  private showLegend(m: TreeModel): void {
    const kinds = new Set(m.drawnKinds());
    if (this.last.bands.length > 0) kinds.add("band");
    const key = [...kinds].sort().join(",");
    if (key === this.legendKey) return;
    this.legendKey = key;
    clear(this.legend);
    for (const k of legendOrder) {
      if (!kinds.has(k)) continue;
      const e = legendEntries[k];
      this.legend.append(h("span", { class: "lg-item", "data-testid": `tree-legend-${k}`, "data-kind": k, title: e.title },
        h("span", { class: `lg lg-${k}`, "data-testid": "tree-legend-swatch" }), e.text));
    }
  }

  // legendKinds says which kinds the legend names, for tests.
  legendKinds(): string[] {
    return [...this.legend.querySelectorAll<HTMLElement>("[data-kind]")].map((e) => e.dataset["kind"]!);
  }

  // drawOverview shows the whole tree, from a picture redrawn only when the
  // layout or the overview's size changes, and the brush: the part the
  // detail view shows, with the rest dimmed.
  private drawOverview(): void {
    const { octx: ctx, ow, oh } = this;
    if (ow < 4 || oh < 4) return;
    const dpr = window.devicePixelRatio || 1;
    const m = this.model;
    const key = m ? `${m.laidOut}:${ow}x${oh}:${dpr}` : "";
    if (m && m.columns.length > 0 && key !== this.overviewKey) {
      this.overviewKey = key;
      const pad = 3;
      const kx = (ow - 2 * pad) / Math.max(DEPTH_W, m.extent.x1 - m.extent.x0 + DEPTH_W * 0.3);
      const ky = (oh - 2 * pad) / Math.max(BREADTH_H, m.extent.y1 - m.extent.y0 + BREADTH_H);
      this.overviewT = { kx, ky, tx: pad - m.extent.x0 * kx, ty: pad - (m.extent.y0 - BREADTH_H / 2) * ky };
      const img = this.overviewImage ?? document.createElement("canvas");
      img.width = this.overview.width;
      img.height = this.overview.height;
      const c = img.getContext("2d", { alpha: false })!;
      c.setTransform(dpr, 0, 0, dpr, 0, 0);
      c.fillStyle = "#ffffff";
      c.fillRect(0, 0, ow, oh);
      paint(c, m, this.overviewT, ow, oh, { labels: false, selected: null });
      this.overviewImage = img;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#f9fafb";
    ctx.fillRect(0, 0, this.overview.width, this.overview.height);
    if (!m || m.columns.length === 0 || !this.overviewImage) return;
    ctx.drawImage(this.overviewImage, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const b = this.brush();
    ctx.fillStyle = "rgba(241, 245, 249, 0.6)";
    ctx.fillRect(0, 0, ow, Math.max(0, b.y0));
    ctx.fillRect(0, b.y1, ow, Math.max(0, oh - b.y1));
    ctx.fillRect(0, b.y0, Math.max(0, b.x0), b.y1 - b.y0);
    ctx.fillRect(b.x1, b.y0, Math.max(0, ow - b.x1), b.y1 - b.y0);
    ctx.strokeStyle = "#2563eb";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(b.x0 + 0.5, b.y0 + 0.5, Math.max(2, b.x1 - b.x0 - 1), Math.max(2, b.y1 - b.y0 - 1));
    const d = this.brushDrag;
    if (d && !d.move) {
      ctx.fillStyle = "rgba(37, 99, 235, 0.15)";
      ctx.fillRect(Math.min(d.x0, d.x1), Math.min(d.y0, d.y1), Math.abs(d.x1 - d.x0), Math.abs(d.y1 - d.y0));
    }
  }

  // brush returns the detail view's world rectangle in overview pixels,
  // kept at least a few pixels tall so that it can be grabbed.
  private brush(): { x0: number; x1: number; y0: number; y1: number } {
    const o = this.overviewT;
    const wx0 = -this.tx / this.kx, wx1 = (this.width - this.tx) / this.kx;
    const wy0 = -this.ty / this.ky, wy1 = (this.height - this.ty) / this.ky;
    let x0 = Math.max(0, wx0 * o.kx + o.tx), x1 = Math.min(this.ow, wx1 * o.kx + o.tx);
    let y0 = Math.max(0, wy0 * o.ky + o.ty), y1 = Math.min(this.oh, wy1 * o.ky + o.ty);
    if (x1 - x0 < 4) [x0, x1] = [(x0 + x1) / 2 - 2, (x0 + x1) / 2 + 2];
    if (y1 - y0 < 4) [y0, y1] = [(y0 + y1) / 2 - 2, (y0 + y1) / 2 + 2];
    return { x0, x1, y0, y1 };
  }

  private listenOverview(): void {
    const c = this.overview;
    const at = (e: PointerEvent): { x: number; y: number } => {
      const r = c.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    c.addEventListener("pointerdown", (e) => {
      const p = at(e);
      const b = this.brush();
      // Dragging the brush moves it, unless it covers the whole overview (at Fit), where a
      // drag picks the part to zoom into.
      const inside = p.x >= b.x0 - 3 && p.x <= b.x1 + 3 && p.y >= b.y0 - 3 && p.y <= b.y1 + 3;
      const whole = b.x1 - b.x0 >= this.ow * 0.9 && b.y1 - b.y0 >= this.oh * 0.9;
      this.brushDrag = { x0: p.x, y0: p.y, x1: p.x, y1: p.y, move: inside && !whole };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      const d = this.brushDrag;
      if (!d) return;
      const p = at(e);
      if (d.move) {
        // The brush follows the pointer: the detail view pans by as much in world units.
        const o = this.overviewT;
        this.tx -= ((p.x - d.x1) / o.kx) * this.kx;
        this.ty -= ((p.y - d.y1) / o.ky) * this.ky;
        this.userMoved = true;
      }
      d.x1 = p.x;
      d.y1 = p.y;
      this.requestDraw();
    });
    c.addEventListener("pointerup", (e) => {
      const d = this.brushDrag;
      this.brushDrag = null;
      c.releasePointerCapture(e.pointerId);
      if (!d) return;
      const o = this.overviewT;
      const wx = (x: number): number => (x - o.tx) / o.kx, wy = (y: number): number => (y - o.ty) / o.ky;
      if (!d.move && Math.abs(d.x1 - d.x0) + Math.abs(d.y1 - d.y0) >= 4) {
        this.zoomTo(wx(Math.min(d.x0, d.x1)), wx(Math.max(d.x0, d.x1)), wy(Math.min(d.y0, d.y1)), wy(Math.max(d.y0, d.y1)));
      } else if (!d.move) {
        // A click centres the detail view there, at its zoom.
        this.userMoved = true;
        this.tx = this.width / 2 - wx(d.x0) * this.kx;
        this.ty = this.height / 2 - wy(d.y0) * this.ky;
      }
      this.requestDraw();
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMoved = true;
      this.ty -= ((e.deltaY * (e.deltaMode === 1 ? 40 : 1)) / this.overviewT.ky) * this.ky * 0.05;
      this.requestDraw();
    }, { passive: false });
  }

  // target finds what is drawn at a point on the canvas: a band, or the
  // node whose dot or incoming edge label is there.
  private target(px: number, py: number): Target | null {
    // The band under the point, or else the nearest within two pixels.
    let near: Band | null = null, nearD = 3;
    for (const b of this.last.bands) {
      if (px < b.x0 - 2 || px > b.x1 + 2) continue;
      const d = py < b.y0 ? b.y0 - py : py > b.y1 ? py - b.y1 : 0;
      if (d < nearD) {
        near = b;
        nearD = d;
        if (d === 0) break;
      }
    }
    if (near) return { band: near };
    const v = this.hit(px, py);
    return v ? { node: v } : null;
  }

  private hit(px: number, py: number): VNode | null {
    const m = this.model;
    if (!m) return null;
    const wx = (px - this.tx) / this.kx;
    const wy = (py - this.ty) / this.ky;
    const c = Math.ceil((wx - 12 / this.kx) / DEPTH_W);
    const col = m.columns[c];
    if (!col || wx < c * DEPTH_W - DEPTH_W) return null;
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
      if (!drag) {
        this.hover(e);
        return;
      }
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moved = true;
      this.userMoved = true;
      this.hideTip();
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.tx += dx;
      this.ty += dy;
      this.requestDraw();
    });
    c.addEventListener("pointerleave", () => this.hideTip());
    c.addEventListener("pointerup", (e) => {
      if (!drag) return;
      const wasClick = !drag.moved;
      c.releasePointerCapture(drag.id);
      drag = null;
      if (!wasClick) return;
      const rect = c.getBoundingClientRect();
      const t = this.target(e.clientX - rect.left, e.clientY - rect.top);
      if (t && "band" in t) {
        this.zoomToBand(t.band);
        return;
      }
      const v = t?.node ?? null;
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
      this.hideTip();
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

  // zoomToBand shows a band's subtrees across the canvas's height, from
  // their parent on, at least as wide as labels need; the overview shows
  // what lies beyond the right edge.
  private zoomToBand(b: Band): void {
    const x0 = b.parent ? b.parent.x : 0;
    this.zoomTo(x0, Math.max(x0 + DEPTH_W, b.deepest * DEPTH_W), b.wy0, b.wy1);
    this.kx = Math.max(this.kx, READ_COLUMN / DEPTH_W);
    this.tx = 24 - x0 * this.kx;
  }

  // hover shows what is under the pointer in the tooltip.
  private hover(e: PointerEvent): void {
    const rect = this.canvas.getBoundingClientRect();
    const px = e.clientX - rect.left, py = e.clientY - rect.top;
    const t = this.target(px, py);
    if (!t) {
      this.hideTip();
      return;
    }
    const tip = this.tip;
    clear(tip);
    if ("band" in t) {
      const b = t.band;
      tip.append(h("b", {}, `${count(b.size, "decision")} · ${count(b.runs, "run")}`));
      if (b.bugRuns > 0) tip.append(h("div", { class: "tip-bug" }, `${count(b.bugRuns, "run")} found a bug${b.bugs > 0 ? ` (the first run of ${count(b.bugs, "bug")})` : ""}`));
      tip.append(h("div", { class: "muted" }, "too thin to draw one by one: click to zoom in"));
    } else {
      const v = t.node;
      if (v.kind === "pruned") {
        const p = v.pruned!;
        tip.append(h("b", {}, `${p.g} not run here: ${p.reason}`), h("div", {}, pruneStyle(p.reason).text));
      } else {
        const n = v.node!;
        tip.append(h("b", {}, n.g ? edgeLabel(v, this.model!.names) : "the root"), h("div", { class: "muted" }, `decision point #${n.id}${n.enabled?.length ? `; enabled ${n.enabled.join(", ")}` : ""}`));
        if (n.pruned?.length) tip.append(h("div", {}, `pruned: ${n.pruned.map((p) => `${p.g} (${p.reason})`).join(", ")}`));
        if (v.bug) {
          const g = v.bug;
          const name = g.bug !== null ? `bug ${bugNumber(g.bug)}` : "a bug";
          tip.append(h("div", { class: "tip-bug" }, v.first
            ? `${n.leaf!.verdict}: ${name}, found by ${count(this.model!.bugRuns(g), "run")}`
            : `${n.leaf!.verdict}: ${name} again, first found by decision point #${g.first.id}`));
        } else if (n.leaf) {
          tip.append(h("div", {}, `run ended: ${n.leaf.verdict}`));
        } else if (v.size > 1) {
          tip.append(h("div", { class: "muted" }, `below: ${count(v.size - 1, "decision")}, ${count(v.runs, "run")}${v.bugRuns ? `, ${v.bugRuns} of them buggy` : ""}`));
        }
      }
    }
    tip.hidden = false;
    const w = tip.offsetWidth, hgt = tip.offsetHeight;
    tip.style.left = `${Math.max(0, Math.min(px + 14, this.width - w - 4))}px`;
    tip.style.top = `${py + 16 + hgt > this.height ? Math.max(0, py - hgt - 10) : py + 16}px`;
  }

  private hideTip(): void {
    this.tip.hidden = true;
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
      d.append(h("p", { class: "muted" }, noDetail));
      return;
    }
    if (v.kind === "pruned") {
      const p = v.pruned!;
      d.append(
        h("h3", {}, `Pruned: ${p.g}`),
        h("p", { "data-testid": "tree-detail-reason" }, h("span", { class: `reason reason-${p.reason}` }, p.reason), " ", pruneStyle(p.reason).text),
        h("p", { class: "muted" }, `Alternative at decision point #${v.id}.`),
      );
      return;
    }
    const n = v.node!;
    const path = this.model.path(v).filter((x) => x.node?.g);
    const dl = h("dl", {},
      h("dt", {}, "step"), h("dd", { "data-testid": "tree-detail-edge" }, n.g ? edgeLabel(v, this.model.names) : "(root)"),
      h("dt", {}, "enabled"), h("dd", {}, (n.enabled ?? []).join(", ") || "none"),
    );
    if (n.pos) dl.append(h("dt", {}, "source"), h("dd", { title: n.pos.file }, `${n.pos.file}:${n.pos.line}`));
    if (n.pruned?.length) dl.append(h("dt", {}, "pruned"), h("dd", {}, n.pruned.map((p) => `${p.g} (${p.reason})`).join(", ")));
    if (n.leaf) dl.append(h("dt", {}, "verdict"), h("dd", { "data-testid": "tree-detail-verdict" }, n.leaf.verdict + (n.leaf.bug !== undefined && n.leaf.bug !== null ? ` (bug ${bugNumber(n.leaf.bug)})` : "")));
    if (v.bug) dl.append(h("dt", {}, "runs"), h("dd", { "data-testid": "tree-detail-runs" }, `${count(this.model.bugRuns(v.bug), "run")} found this bug`));
    d.append(h("h3", {}, `Decision point #${n.id}`), dl);
    d.append(h("p", { class: "path", title: "the goroutines picked from the root to here" }, path.length ? path.map((x) => x.node!.g).join(" → ") : "at the root"));
    const bug = n.leaf?.bug;
    if (bug !== undefined && bug !== null) {
      const b = h("button", { "data-testid": "tree-open-bug" }, `Open timeline of bug ${bugNumber(bug)}`);
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

// The legend's entries, in the order it lists them: the kinds of leaf (how a run ended), bands,
// folded subtrees, and the alternatives not run, by why.
const legendOrder = ["bug", "again", "ok", "other", "aborted", "band", "folded", "sleep", "persistent", "delayed", "bound", "depth"] as const;

const legendEntries: Record<(typeof legendOrder)[number], { text: string; title: string }> = {
  bug: { text: "found a bug", title: "the first run that found a bug; its label says how many runs found it" },
  again: { text: "found the same bug again", title: "a later run that found a bug already marked" },
  ok: { text: "passed", title: "a run that ended without a bug" },
  other: { text: "ended otherwise", title: "a run that ended neither passing nor in a bug: cut at the step limit, or diverged" },
  aborted: { text: "given up", title: "a run abandoned because every goroutine that could run was asleep" },
  band: { text: "many runs, as one bar", title: "subtrees too thin to draw one by one, as a bar to their deepest step; a red end if runs in them found bugs. Hover to count them, click to zoom in" },
  folded: { text: "folded", title: "a folded subtree: double-click to unfold it" },
  sleep: { text: "not run: same order tried already", title: reasonStyle.sleep.text },
  persistent: { text: "not run: cannot change the outcome", title: reasonStyle.persistent.text },
  delayed: { text: "not run: postponed", title: reasonStyle.delayed.text },
  bound: { text: "not run: too many preemptions", title: reasonStyle.bound.text },
  depth: { text: "not run: too deep", title: reasonStyle.depth.text },
};

function count(n: number, what: string): string {
  return `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`;
}
