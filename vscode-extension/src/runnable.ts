// The quick pick of "Choose Next Goroutine", from a heddle/runnable body.
// Nothing here depends on VS Code.

import { RunnableGoroutine, formatPosition, parseRunnable } from "./protocol";

export interface GoroutineItem {
  label: string;
  description: string;
  detail: string;
  goroutine: string;
  picked: boolean;
}

// runnableItems lists the goroutines that may run next: the current one
// first, then by id in numeric order (G1, G1.2, G1.10).
export function runnableItems(body: unknown): GoroutineItem[] {
  const gs = parseRunnable(body);
  gs.sort((a, b) => Number(b.current) - Number(a.current) || compareIds(a.id, b.id));
  return gs.map(item);
}

function item(g: RunnableGoroutine): GoroutineItem {
  return {
    label: g.current ? `$(debug-stackframe) ${g.id}` : g.id,
    description: [g.op || "(no operation)", g.current ? "current" : ""].filter(Boolean).join(" · "),
    detail: formatPosition(g.position, true),
    goroutine: g.id,
    picked: g.current,
  };
}

// compareIds orders logical goroutine ids like G1.2.10 by their numbers.
export function compareIds(a: string, b: string): number {
  const pa = a.replace(/^G/, "").split("."), pb = b.replace(/^G/, "").split(".");
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (i >= pa.length) return -1;
    if (i >= pb.length) return 1;
    const na = Number(pa[i]), nb = Number(pb[i]);
    if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
    if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  }
  return 0;
}
