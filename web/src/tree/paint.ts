import { basename } from "../dom";
import { bugNumber, category, categoryColor, noNames, stepText, type Names } from "../ops";
import { isPruneReason, type PruneReason } from "../types";
import { BREADTH_H, DEPTH_W, isBug, type TreeModel, type VNode } from "./model";

// The elbow of an edge sits this far right of its parent, so that siblings
// share one vertical segment and labels get the long horizontal run.
const BEND = 18;
// A stub for a pruned alternative runs this fraction of the way to where a
// child would be.
const STUB = 0.45;
// Siblings whose subtrees together are thinner than this many pixels are drawn as one band, so
// that a frame costs what the screen holds, not what the tree holds, and a huge tree shows its
// shape instead of a solid block (as a flame chart's overview does).
const BAND_PX = 5;
const MAX_LABELS = 3000;
const LABEL_H = 13;

export const reasonStyle: Record<PruneReason, { color: string; dash: number[]; text: string }> = {
  sleep: { color: "#2563eb", dash: [6, 4], text: "in the sleep set: an equivalent interleaving was explored already" },
  persistent: { color: "#8b95a1", dash: [2, 3], text: "not in the persistent set: independent of the steps explored here" },
  delayed: { color: "#d97706", dash: [9, 3, 2, 3], text: "delayed (ExitBlock-RW) until a later block touches what it touches" },
  bound: { color: "#7c3aed", dash: [4, 2], text: "beyond the preemption bound" },
  depth: { color: "#0f766e", dash: [1, 3], text: "below the depth bound of the portfolio's exhaustive search" },
};

// pruneStyle is how the view draws an alternative pruned for reason, which may be one it
// does not know: it is then drawn as a persistent-set prune, with its reason as the text.
export function pruneStyle(reason: string): { color: string; dash: number[]; text: string } {
  return isPruneReason(reason) ? reasonStyle[reason] : { ...reasonStyle.persistent, text: reason };
}

export const verdictColor = { bug: "#dc2626", ok: "#16a34a", aborted: "#6b7280", other: "#ea580c" };
const bandColor = "#d5dce4";

type LeafKind = keyof typeof verdictColor | "again";

function leafKind(v: VNode): LeafKind | null {
  const leaf = v.node?.leaf;
  if (!leaf) return null;
  if (isBug(leaf)) return v.first ? "bug" : "again";
  if (leaf.verdict === "aborted") return "aborted";
  if (leaf.verdict === "ok") return "ok";
  return "other";
}

// A Transform maps world units to canvas pixels; depth and breadth scale
// separately, so that a tree thousands of times wider than deep can be seen
// whole.
export interface Transform {
  kx: number;
  ky: number;
  tx: number;
  ty: number;
}

// A Band is a run of sibling subtrees drawn as one shape, in canvas
// pixels, with what it holds.
export interface Band {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  wy0: number; // the breadth it spans, in world units
  wy1: number;
  parent: VNode | null;
  deepest: number; // the depth of its deepest node
  size: number;
  runs: number;
  bugRuns: number;
  bugs: number;
}

// A Label is a text drawn on the tree, with its box in canvas pixels.
export interface Label {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  text: string;
}

// Painted is what one frame drew: the bands for hovering and hit testing,
// the labels and the bug marks for tests.
export interface Painted {
  bands: Band[];
  labels: Label[];
  bugMarks: number;
  againMarks: number;
  nodes: number;
}

interface Candidate {
  x: number;
  y: number;
  text: string;
  color: string;
  align: CanvasTextAlign;
  font: string;
  priority: number; // lower is placed first
  room: number; // pixels the text may take before it is cut
  // Where to end the text instead when it would run past the right edge.
  flip?: number;
}

const edgeFont = "10px ui-monospace, monospace";
const leafFont = "11px system-ui, sans-serif";
const stubFont = "italic 10px system-ui, sans-serif";

// paint draws the laid-out tree of m on ctx, whose drawing area is width x
// height pixels, under transform t. It walks the tree from the roots and
// stops at subtrees out of view or thinner than BAND_PX, which it draws as
// bands; labels are placed in order of importance wherever they fit, cut to
// the room they have, and never overlap.
export function paint(ctx: CanvasRenderingContext2D, m: TreeModel, t: Transform, width: number, height: number, opts: { labels: boolean; selected: VNode | null }): Painted {
  const { kx, ky, tx, ty } = t;
  const out: Painted = { bands: [], labels: [], bugMarks: 0, againMarks: 0, nodes: 0 };
  const sx = (x: number): number => x * kx + tx;
  const sy = (y: number): number => y * ky + ty;
  const margin = 12 / ky;
  const wy0 = -ty / ky - margin, wy1 = (height - ty) / ky + margin;
  const bend = Math.min(BEND * Math.max(kx, 0.3), DEPTH_W * kx * 0.3);
  const row = ky * BREADTH_H;
  const small = row < 6;
  const k = Math.min(kx, ky);
  const r = small ? 1.5 : Math.max(2, Math.min(5, 5 * ky));
  const leafR = small ? 2 : Math.max(2.5, Math.min(6, 6 * ky));
  const wantLabels = opts.labels && row >= 4 && DEPTH_W * kx >= 60;

  const edges = new Path2D();
  const stubs: Record<PruneReason, Path2D> = { sleep: new Path2D(), persistent: new Path2D(), delayed: new Path2D(), bound: new Path2D(), depth: new Path2D() };
  const inner = new Path2D();
  const leaves: Record<LeafKind, Path2D> = { bug: new Path2D(), again: new Path2D(), ok: new Path2D(), aborted: new Path2D(), other: new Path2D() };
  const folded = new Path2D();
  const bands = { plain: new Path2D(), bug: new Path2D() };
  const cands: Candidate[] = [];
  const labelRoom = DEPTH_W * kx - bend - r - 6;

  const flush = (parent: VNode | null, run: VNode[], ex: number): void => {
    if (run.length === 0) return;
    let span = 0, size = 0, runs = 0, bugRuns = 0, bugs = 0, wy0 = Infinity, wy1 = -Infinity;
    for (const v of run) {
      wy0 = Math.min(wy0, v.y0);
      wy1 = Math.max(wy1, v.y1);
      span = Math.max(span, v.depth + v.span);
      size += v.size;
      runs += v.runs;
      bugRuns += v.bugRuns;
      bugs += v.bugs;
    }
    const y0 = Math.floor(sy(wy0)), y1 = Math.max(y0 + 1, Math.ceil(sy(wy1)));
    const x0 = ex, x1 = Math.max(ex + 2, sx(span * DEPTH_W));
    // A band fills the middle of its rows, so that adjacent subtrees stay apart and the
    // tree's shape shows; a band in which runs found bugs ends in a red tick, as an error
    // marks a span in a trace view.
    const hgt = Math.max(1, Math.round((y1 - y0) * 0.6));
    const top = y0 + Math.floor((y1 - y0 - hgt) / 2);
    bands.plain.rect(x0, top, x1 - x0, hgt);
    if (bugRuns > 0) bands.bug.rect(x1 - 4, top, 4, hgt);
    out.bands.push({ x0, x1, y0, y1, wy0, wy1, parent, deepest: span, size, runs, bugRuns, bugs });
    run.length = 0;
  };

  // Roots are the children of an unseen node left of the first column.
  const top = { children: m.roots, y: 0, x: -DEPTH_W } as unknown as VNode;
  const stack: VNode[] = [top];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const isTop = v === top;
    const cx = sx(v.x), cy = sy(v.y);
    if (!isTop) {
      out.nodes++;
      drawNode(v, cx, cy);
      if (v.collapsed || v.children.length === 0) continue;
    }
    // A node has a child per goroutine it could run at most, so its children are scanned
    // whole: siblings' subtrees may overlap across the breadth (a pruned stub sits beside a
    // deep sibling's subtree), so their extents are not in order.
    const kids = v.children;
    const elbow = cx + bend;
    if (!isTop) {
      const ya = Math.max(sy(Math.min(v.y, kids[0]!.y)), -2), yb = Math.min(sy(Math.max(v.y, kids[kids.length - 1]!.y)), height + 2);
      edges.moveTo(cx, cy);
      edges.lineTo(elbow, cy);
      if (yb > ya) {
        edges.moveTo(elbow, ya);
        edges.lineTo(elbow, yb);
      }
    }
    const run: VNode[] = [];
    for (const c of kids) {
      if (c.y1 < wy0 || c.y0 > wy1) {
        flush(isTop ? null : v, run, isTop ? sx(0) : elbow);
        continue;
      }
      const thin = (c.y1 - c.y0 + BREADTH_H) * ky < BAND_PX;
      if (thin && run.length > 0 && (c.y1 - run[0]!.y0 + BREADTH_H) * ky >= BAND_PX) flush(isTop ? null : v, run, isTop ? sx(0) : elbow);
      if (thin) {
        run.push(c);
        continue;
      }
      flush(isTop ? null : v, run, isTop ? sx(0) : elbow);
      const ccx = sx(c.x), ccy = sy(c.y);
      if (c.kind === "pruned") {
        const r = c.pruned!.reason;
        const p = stubs[isPruneReason(r) ? r : "persistent"];
        const end = elbow + (ccx - elbow) * STUB;
        p.moveTo(elbow, ccy);
        p.lineTo(end, ccy);
        p.moveTo(end, ccy - 4 * Math.min(1, k));
        p.lineTo(end, ccy + 4 * Math.min(1, k));
        if (wantLabels) cands.push({ x: elbow + 4, y: ccy - 4, text: `${c.pruned!.g} · not run`, color: pruneStyle(r).color, align: "left", font: stubFont, priority: 4, room: (ccx - elbow) * STUB + 20 });
        continue;
      }
      if (!isTop) {
        edges.moveTo(elbow, ccy);
        edges.lineTo(ccx, ccy);
        if (wantLabels && c.node?.g) cands.push({ x: elbow + 4, y: ccy - 4, text: edgeLabel(c, m.names), color: categoryColor[category(c.node.op ?? "")], align: "left", font: edgeFont, priority: 2, room: labelRoom });
      }
      // Subtrees wholly right or left of the view need no visit.
      if (ccx <= width + 20 && sx(c.x + c.span * DEPTH_W) >= -20) stack.push(c);
    }
    flush(isTop ? null : v, run, isTop ? sx(0) : elbow);
  }

  function drawNode(v: VNode, cx: number, cy: number): void {
    if (cy < -20 || cy > height + 20 || cx < -20 || cx > width + 20) return;
    const lk = leafKind(v);
    if (v.collapsed) {
      folded.moveTo(cx - r, cy - r * 1.4);
      folded.lineTo(cx + r * 1.6, cy);
      folded.lineTo(cx - r, cy + r * 1.4);
      folded.closePath();
      if (wantLabels) cands.push({ x: cx + r * 2 + 3, y: cy + 4, text: `+${v.hidden}`, color: "#374151", align: "left", font: "bold 11px system-ui, sans-serif", priority: 1, room: 80 });
    } else if (lk === null) {
      addDot(inner, cx, cy, r, small);
    } else if (lk !== "bug") {
      // First leaves of bugs are drawn below, on top of everything else.
      addLeaf(leaves[lk], lk, cx, cy, lk === "again" ? leafR * 0.7 : leafR, small);
      if (lk === "again") out.againMarks++;
      else if (wantLabels) cands.push({ x: cx + 10, y: cy + (v.children.length ? 15 : 4), text: v.node!.leaf!.verdict, color: verdictColor[lk], align: "left", font: leafFont, priority: 3, room: labelRoom });
    }
    if (wantLabels && row >= 26 && v.node?.enabled && v.node.enabled.length > 0 && v.children.length > 0) {
      cands.push({ x: cx - 6, y: cy + 13, text: `{${v.node.enabled.join(" ")}}`, color: "#6b7280", align: "right", font: "9px ui-monospace, monospace", priority: 5, room: labelRoom });
    }
  }

  // The first run of each bug is marked wherever it is, bands included, so
  // that every bug stays findable when the tree is zoomed out.
  for (const g of m.bugs.values()) {
    const v = g.first;
    if (m.laidOut < 0 || !isShown(v)) continue;
    const cx = sx(v.x), cy = sy(v.y);
    if (cy < -10 || cy > height + 10 || cx < -10 || cx > width + 10) continue;
    addLeaf(leaves.bug, "bug", cx, cy, Math.max(leafR, 3.5), false);
    out.bugMarks++;
    if (opts.labels) {
      const name = g.bug !== null ? `${g.verdict} · bug ${bugNumber(g.bug)}` : g.verdict;
      const runs = m.bugRuns(g);
      cands.push({ x: cx + 10, y: cy + (v.children.length ? 15 : 4), text: runs > 1 ? `${name} · ${runs} runs` : name, color: verdictColor.bug, align: "left", font: `bold ${leafFont}`, priority: 0, room: 260, flip: cx - 10 });
    }
  }

  ctx.lineWidth = 1;
  ctx.fillStyle = bandColor;
  ctx.fill(bands.plain);
  ctx.fillStyle = verdictColor.bug;
  ctx.fill(bands.bug);
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
  ctx.strokeStyle = verdictColor.bug;
  ctx.lineWidth = 1.25;
  ctx.stroke(leaves.again);
  ctx.fillStyle = verdictColor.bug;
  ctx.fill(leaves.bug);
  ctx.strokeStyle = "rgba(220, 38, 38, 0.35)";
  ctx.lineWidth = 4;
  ctx.stroke(leaves.bug);
  const v = opts.selected;
  if (v && v.depth >= 0 && isShown(v)) {
    ctx.strokeStyle = "#2563eb";
    ctx.lineWidth = 2;
    ctx.beginPath();
    const x = v.kind === "pruned" && v.parent ? sx(v.parent.x) + bend + (sx(v.x) - sx(v.parent.x) - bend) * STUB : sx(v.x);
    ctx.arc(x, sy(v.y), 9, 0, 2 * Math.PI);
    ctx.stroke();
  }
  if (cands.length > 0) placeLabels(ctx, cands, width, height, out.labels);
  return out;
}

// isShown tells whether v is laid out: no ancestor of it is folded.
function isShown(v: VNode): boolean {
  for (let p = v.parent; p; p = p.parent) if (p.collapsed) return false;
  return true;
}

// placeLabels draws the candidates in order of priority, each cut to its
// room, skipping any that would overlap one already drawn.
function placeLabels(ctx: CanvasRenderingContext2D, cands: Candidate[], width: number, height: number, placed: Label[]): void {
  cands.sort((a, b) => a.priority - b.priority);
  const rows = new Map<number, Label[]>();
  const bucket = (y: number): number => Math.floor(y / 32);
  ctx.textBaseline = "alphabetic";
  for (const c of cands) {
    if (placed.length >= MAX_LABELS) break;
    if (c.y < -LABEL_H || c.y > height + LABEL_H || c.room < 24) continue;
    ctx.font = c.font;
    const text = cut(ctx, c.font, c.text, c.room);
    if (!text) continue;
    const w = measure(ctx, c.font, text);
    if (c.flip !== undefined && c.align === "left" && c.x + w > width) {
      c.align = "right";
      c.x = c.flip;
    }
    const box: Label = { x0: c.align === "right" ? c.x - w : c.x, x1: c.align === "right" ? c.x : c.x + w, y0: c.y - 10, y1: c.y + 3, text };
    if (box.x0 < 0 || box.x1 > width) continue;
    let free = true;
    for (let b = bucket(box.y0); b <= bucket(box.y1) && free; b++) {
      for (const o of rows.get(b) ?? []) {
        if (o.x0 < box.x1 && box.x0 < o.x1 && o.y0 < box.y1 && box.y0 < o.y1) {
          free = false;
          break;
        }
      }
    }
    if (!free) continue;
    for (let b = bucket(box.y0); b <= bucket(box.y1); b++) {
      let list = rows.get(b);
      if (!list) rows.set(b, (list = []));
      list.push(box);
    }
    placed.push(box);
    if (c.priority === 0) {
      // A bug's label may lie over the tree (flipped left of its leaf, or over bands): it
      // gets a backing so that it stays readable.
      ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
      ctx.fillRect(box.x0 - 2, box.y0 - 1, box.x1 - box.x0 + 4, box.y1 - box.y0 + 2);
    }
    ctx.fillStyle = c.color;
    ctx.textAlign = c.align;
    ctx.fillText(text, c.x, c.y);
  }
  ctx.textAlign = "left";
}

const widths = new Map<string, number>();

function measure(ctx: CanvasRenderingContext2D, font: string, text: string): number {
  const key = `${font}\u0000${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    w = ctx.measureText(text).width;
    if (widths.size > 50000) widths.clear();
    widths.set(key, w);
  }
  return w;
}

// cut shortens text with an ellipsis to at most room pixels, or returns ""
// if not even a few characters fit.
function cut(ctx: CanvasRenderingContext2D, font: string, text: string, room: number): string {
  if (measure(ctx, font, text) <= room) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (measure(ctx, font, text.slice(0, mid) + "…") <= room) lo = mid;
    else hi = mid - 1;
  }
  return lo >= 3 ? text.slice(0, lo) + "…" : "";
}

// edgeLabel says the step into a decision point as the CLI's interleaving table says a step:
// its goroutine and the call it made, on the object as the program names it (G1.1
// ac.mu.Lock()), and where when the exploration knows.
export function edgeLabel(v: VNode, names: Names = noNames): string {
  const n = v.node!;
  const where = n.pos ? ` ${basename(n.pos.file)}:${n.pos.line}` : "";
  return `${n.g ?? ""}${n.op ? ` ${stepText({ op: n.op, ...(n.obj ? { obj: n.obj } : {}) }, names)}` : ""}${where}`;
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
  if (small && kind !== "again") {
    p.rect(x - r, y - r, 2 * r, 2 * r);
    return;
  }
  switch (kind) {
    case "bug":
    case "again":
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
