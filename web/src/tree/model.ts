import { hierarchy, tree as tidyTree } from "d3-hierarchy";
import { noNames, type Names } from "../ops";
import type { Leaf, Pruned, TreeNode } from "../types";

// A VNode is a node of the drawn tree: either a decision point of the
// schedule tree, or a pruned alternative, drawn as a stub so that what was
// not explored stays visible next to what was.
export interface VNode {
  kind: "node" | "pruned";
  id: number; // the decision point's id; for a stub, its parent's
  node: TreeNode | null;
  pruned: Pruned | null;
  parent: VNode | null;
  children: VNode[]; // decision points first, then stubs
  collapsed: boolean;
  hidden: number; // decision points under a collapsed node
  // bug is the bug a leaf's run found; first says whether this leaf is the first run that found
  // it, the one the view marks, so that a bug hit by forty runs shows as one red leaf.
  bug: BugGroup | null;
  first: boolean;
  // Layout, in world units: x grows with depth, y across siblings.
  x: number;
  y: number;
  depth: number;
  // The laid-out subtree under this node: its extent across siblings, how many columns deep it
  // goes below the node, and what it holds. The view draws a subtree thinner than a few
  // pixels as one band rather than node by node.
  y0: number;
  y1: number;
  span: number;
  size: number; // decision points, this one included
  runs: number; // leaves
  bugRuns: number; // leaves whose run found a bug
  bugs: number; // first leaves of bugs
}

// A BugGroup is one distinct bug of the tree and the leaves whose runs found it.
export interface BugGroup {
  key: string;
  bug: number | null; // its id in the exploration's bugs, when numbered
  verdict: string;
  first: VNode;
  count: number;
}

export interface TreeStats {
  nodes: number;
  leaves: number;
  bugs: number;
}

// Spacing of the layout in world units (pixels at zoom 1).
export const DEPTH_W = 220;
export const BREADTH_H = 22;

// A Column holds the laid-out nodes at one depth, ordered by y, so that
// the pointer's node is found by binary search.
export interface Column {
  nodes: VNode[];
  ys: Float64Array;
}

function vnode(kind: VNode["kind"], id: number, node: TreeNode | null, pruned: Pruned | null, parent: VNode | null): VNode {
  return {
    kind, id, node, pruned, parent, children: [], collapsed: false, hidden: 0, bug: null, first: false,
    x: 0, y: 0, depth: 0, y0: 0, y1: 0, span: 0, size: 0, runs: 0, bugRuns: 0, bugs: 0,
  };
}

// bugKey names the bug of a leaf: by its id in the exploration's bugs or, in a live stream,
// by its signature.
function bugKey(leaf: Leaf): string {
  return leaf.bug !== undefined && leaf.bug !== null ? `#${leaf.bug}` : `key ${leaf.key}`;
}

// isBug tells whether a run ended in a bug: a leaf names the bug by its id in
// the exploration's bugs or, in a live stream where bugs are not yet numbered,
// by its key.
export function isBug(leaf: Leaf): boolean {
  return (leaf.bug !== undefined && leaf.bug !== null) || !!leaf.key;
}

export class TreeModel {
  readonly byId = new Map<number, VNode>();
  readonly roots: VNode[] = [];
  newest: VNode | null = null; // the decision point added last
  private leafCount = 0;
  // The distinct bugs, in the order their first runs arrived.
  readonly bugs = new Map<string, BugGroup>();
  columns: Column[] = [];
  extent = { x0: 0, x1: 0, y0: 0, y1: 0 };
  version = 0; // bumped on every change, so views know to relayout
  laidOut = -1; // the version the layout is for
  lastLayoutMs = 0;
  // How the program names the objects of the steps, for the edges' labels.
  names: Names = noNames;
  // The runs that found each bug, by its id, as the exploration counts them (a bug's hits):
  // the tree holds one leaf per distinct schedule, and several strategies' runs may end at one.
  hits = new Map<number, number>();

  // bugRuns is how many runs found bug group g, as the CLI counts them ("BUG: deadlock (3 runs)").
  bugRuns(g: BugGroup): number {
    return (g.bug !== null ? this.hits.get(g.bug) : undefined) ?? g.count;
  }

  // add inserts a decision point. A node seen before is ignored, which makes
  // a replayed stream harmless; a node whose parent is unknown is dropped
  // and reported, because it cannot be placed.
  add(n: TreeNode): boolean {
    if (this.byId.has(n.id)) return false;
    const parent = n.parent === -1 ? null : this.byId.get(n.parent);
    if (parent === undefined) {
      console.warn(`heddle: tree node ${n.id} names unknown parent ${n.parent}`);
      return false;
    }
    const v = vnode("node", n.id, n, null, parent ?? null);
    for (const p of n.pruned ?? []) v.children.push(vnode("pruned", n.id, null, p, v));
    this.byId.set(n.id, v);
    this.newest = v;
    if (parent) {
      if (!parent.children.some((c) => c.kind === "node")) this.leafCount--;
      // Decision points stay ahead of stubs, in arrival order.
      const at = parent.children.findIndex((c) => c.kind === "pruned");
      if (at < 0) parent.children.push(v);
      else parent.children.splice(at, 0, v);
    } else {
      this.roots.push(v);
    }
    this.leafCount++;
    for (const p of n.pruned ?? []) this.kinds.add(p.reason);
    if (n.leaf && !isBug(n.leaf)) this.kinds.add(n.leaf.verdict === "ok" ? "ok" : n.leaf.verdict === "aborted" ? "aborted" : "other");
    if (n.leaf && isBug(n.leaf)) {
      const key = bugKey(n.leaf);
      let g = this.bugs.get(key);
      if (!g) {
        g = { key, bug: n.leaf.bug ?? null, verdict: n.leaf.verdict, first: v, count: 0 };
        this.bugs.set(key, g);
        v.first = true;
        this.kinds.add("bug");
      } else {
        this.kinds.add("again");
      }
      g.count++;
      v.bug = g;
    }
    this.version++;
    return true;
  }

  // drawnKinds lists the kinds of mark the tree draws: how its runs ended (bug, again, ok,
  // other, aborted), folded subtrees, and why alternatives were not run (sleep, persistent,
  // delayed, bound, depth).
  drawnKinds(): string[] {
    const kinds = [...this.kinds];
    if (this.folded > 0) kinds.push("folded");
    return kinds;
  }

  // The kinds of mark of the nodes added so far, kept as they arrive so that a frame need not
  // walk the tree, and how many nodes are folded.
  private readonly kinds = new Set<string>();
  private folded = 0;

  stats(): TreeStats {
    return { nodes: this.byId.size, leaves: this.leafCount, bugs: this.bugs.size };
  }

  toggle(v: VNode): void {
    if (v.children.length === 0) return;
    v.collapsed = !v.collapsed;
    this.folded += v.collapsed ? 1 : -1;
    this.version++;
  }

  expandAll(): void {
    for (const v of this.byId.values()) v.collapsed = false;
    this.folded = 0;
    this.version++;
  }

  // layout places every visible node with the tidy tree algorithm, once per
  // change rather than per frame, and builds the per-depth columns.
  layout(): void {
    const t0 = performance.now();
    const top = vnode("node", -1, null, null, null);
    top.children = this.roots;
    const root = hierarchy<VNode>(top, (v) => (v.collapsed ? null : v.children));
    tidyTree<VNode>()
      .nodeSize([BREADTH_H, DEPTH_W])
      .separation((a, b) => (a.parent === b.parent ? 1 : 1.5))(root);
    const columns: VNode[][] = [];
    let y0 = Infinity, y1 = -Infinity;
    // each() is breadth-first, so every column fills in order of y.
    root.each((h) => {
      const v = h.data;
      if (v === top) return;
      v.depth = h.depth - 1;
      v.x = v.depth * DEPTH_W;
      v.y = h.x ?? 0;
      (columns[v.depth] ??= []).push(v);
      if (v.y < y0) y0 = v.y;
      if (v.y > y1) y1 = v.y;
    });
    for (const v of this.byId.values()) {
      if (v.collapsed) v.hidden = countHidden(v);
    }
    // Subtree summaries, children before parents.
    root.eachAfter((h) => {
      const v = h.data;
      v.y0 = v.y1 = v.y;
      v.span = 0;
      v.size = v.kind === "node" ? 1 : 0;
      v.runs = v.node?.leaf ? 1 : 0;
      v.bugRuns = v.bug ? 1 : 0;
      v.bugs = v.first ? 1 : 0;
      for (const c of h.children ?? []) {
        const k = c.data;
        if (k.y0 < v.y0) v.y0 = k.y0;
        if (k.y1 > v.y1) v.y1 = k.y1;
        if (k.span + 1 > v.span) v.span = k.span + 1;
        v.size += k.size;
        v.runs += k.runs;
        v.bugRuns += k.bugRuns;
        v.bugs += k.bugs;
      }
    });
    this.columns = columns.map((nodes) => {
      const ys = new Float64Array(nodes.length);
      nodes.forEach((v, i) => {
        ys[i] = v.y;
      });
      return { nodes, ys };
    });
    this.extent = { x0: 0, x1: Math.max(0, columns.length - 1) * DEPTH_W, y0: isFinite(y0) ? y0 : 0, y1: isFinite(y1) ? y1 : 0 };
    this.laidOut = this.version;
    this.lastLayoutMs = performance.now() - t0;
  }

  // path returns the decision points from a root to v.
  path(v: VNode): VNode[] {
    const out: VNode[] = [];
    for (let p: VNode | null = v.kind === "node" ? v : v.parent; p; p = p.parent) out.push(p);
    return out.reverse();
  }
}

function countHidden(v: VNode): number {
  let n = 0;
  const stack = [...v.children];
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c.kind === "node") n++;
    stack.push(...c.children);
  }
  return n;
}

// lowerBound returns the first index i with ys[i] >= y.
export function lowerBound(ys: Float64Array, y: number): number {
  let lo = 0, hi = ys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ys[mid]! < y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
