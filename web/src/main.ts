import { Api, ApiError, traceRefKey, type TraceRef } from "./api";
import { BugsView } from "./bugs";
import { basename, h } from "./dom";
import { LockView } from "./locks";
import { TimelineView } from "./timeline";
import { TreeModel } from "./tree/model";
import { TreeView } from "./tree/view";
import type { Bug, BugSummary, Exploration, ExplorationSummary, Stats, StreamMessage, TraceSummary, TreeNode } from "./types";

type ViewName = "tree" | "locks" | "timeline" | "bugs";

// A Source is something whose schedule tree can be shown: an exploration
// file the server holds, or the live exploration streaming in.
interface Source {
  id: string;
  model: TreeModel;
  exploration: Exploration | null;
  bugs: Bug[];
  stats: Stats | null;
}

const LIVE = "live";

declare global {
  interface Window {
    heddle: {
      treeStats(): { nodes: number; leaves: number; bugs: number };
      selectedStep(): number | null;
      warnings(): number;
      treeDrawTimes(): number[];
      treeDrawn(): ReturnType<TreeView["drawn"]>;
      treeLayoutMs(): number;
      treeNodeAt(id: number): { x: number; y: number } | null;
      treeFocus(id: number): boolean;
      ready(): boolean;
    };
  }
}

class App {
  private readonly api: Api;
  private readonly tree: TreeView;
  private readonly locks = new LockView();
  private readonly timeline: TimelineView;
  private readonly bugs: BugsView;
  private readonly select = h("select", { "data-testid": "exploration-select", title: "Which exploration to show" });
  private readonly statsEl = h("span", { class: "stats", "data-testid": "stats" });
  private readonly wsEl = h("span", { class: "ws", "data-testid": "ws-status" }, "connecting");
  // The page is connected to its server, and an exploration streams to it: saved files alone
  // are not live.
  private connected = false;
  private streaming = false;
  private readonly gotoEl = h("span", { class: "goto-status", "data-testid": "goto-status" });
  private readonly programEl = h("span", { class: "program", "data-testid": "program" });
  private readonly tabs = new Map<ViewName, HTMLAnchorElement>();
  private readonly views: Map<ViewName, HTMLElement>;
  private readonly sources = new Map<string, Source>();
  private readonly loading = new Map<string, Promise<Source>>();
  private summaries: ExplorationSummary[] = [];
  private traces: TraceSummary[] = [];
  private current: Source | null = null;
  private view: ViewName = "tree";
  private traceKey = "";
  private pendingStep: number | null = null;
  private gotoTimer = 0;
  // Whether a debugger follows the page's steps. Without one (heddle serve, heddle test
  // -serve) the server refuses every step, so the page does not ask.
  private debugger = false;
  private isReady = false;

  constructor(token: string) {
    this.api = new Api(token);
    this.tree = new TreeView({ openBug: (bug) => this.openBug(bug) });
    this.timeline = new TimelineView(this.api, { userSelected: (step) => this.userSelected(step) });
    this.bugs = new BugsView({
      bugHref: (b) => this.bugHref(b.exploration, b.id, b.trace),
      traceHref: (name) => `#/timeline?path=${encodeURIComponent(name)}`,
    });
    this.views = new Map<ViewName, HTMLElement>([
      ["tree", this.tree.el], ["locks", this.locks.el], ["timeline", this.timeline.el], ["bugs", this.bugs.el],
    ]);
    // Only the tree shows until the route is known, so that it is first
    // laid out at its real size.
    for (const [name, el] of this.views) el.hidden = name !== "tree";
    const nav = h("nav", {});
    for (const [name, label] of [["tree", "Schedule tree"], ["locks", "Lock trees"], ["timeline", "Timeline"], ["bugs", "Bugs"]] as const) {
      const a = h("a", { href: `#/${name}`, "data-testid": `tab-${name}` }, label);
      this.tabs.set(name, a);
      nav.append(a);
    }
    this.select.addEventListener("change", () => void this.useSource(this.select.value));
    document.body.append(
      h("header", {}, h("span", { class: "brand" }, "Heddle"), this.programEl, nav, this.select),
      h("main", {}, ...this.views.values()),
      h("footer", {}, this.wsEl, this.statsEl, this.gotoEl),
    );
    window.heddle = {
      treeStats: () => this.tree.stats(),
      selectedStep: () => this.timeline.selectedStep(),
      warnings: () => this.locks.warningCount(),
      treeDrawTimes: () => this.tree.recentDrawTimes(),
      treeDrawn: () => this.tree.drawn(),
      treeLayoutMs: () => this.current?.model.lastLayoutMs ?? 0,
      treeNodeAt: (id) => this.tree.nodeAt(id),
      treeFocus: (id) => this.tree.focus(id),
      ready: () => this.isReady,
    };
    document.addEventListener("keydown", (e) => this.key(e));
    window.addEventListener("hashchange", () => void this.route());
  }

  async start(): Promise<void> {
    try {
      const [session, explorations, traces] = await Promise.all([this.api.session(), this.api.explorations(), this.api.traces()]);
      this.summaries = explorations;
      this.traces = traces;
      this.showProgram(session.program);
      this.debugger = session.debugger;
      for (const x of explorations) {
        this.select.append(h("option", { value: x.id, title: x.name }, `${explorationLabel(x.name)} (${count(x.nodes, "node")}, ${count(x.bugs, "bug")})`));
      }
      if (explorations.length > 0) await this.useSource(explorations[0]!.id);
      else this.showStats(session.stats);
    } catch (err) {
      this.fail(err);
    }
    this.api.stream((m) => this.message(m), (up) => {
      this.connected = up;
      this.showConnection();
    });
    await this.route();
    this.isReady = true;
  }

  private fail(err: unknown): void {
    const text = err instanceof ApiError && err.status === 401
      ? "This page's token is missing or stale: open the URL that heddle printed."
      : `Could not reach the heddle server: ${err instanceof Error ? err.message : String(err)}`;
    document.body.prepend(h("div", { class: "error-banner", "data-testid": "error" }, text));
  }

  // showProgram names what the page shows. A session with no program yet (heddle test -serve
  // before its first exploration ends) is a live exploration; its id is part of the page's
  // secret and is not shown.
  private showProgram(p: { package?: string; test?: string } | null): void {
    this.programEl.textContent = [p?.package, p?.test].filter(Boolean).join(" · ") || "live exploration";
  }

  private showStats(st: Stats | null): void {
    if (!st) {
      this.statsEl.textContent = "";
      return;
    }
    const pruned = `pruned ${st.prunedSleep} sleep / ${st.prunedPersistent} persistent / ${st.prunedDelayed} delayed`;
    this.statsEl.textContent = [count(st.runs, "run"), count(st.decisions, "decision"), pruned, count(st.bugs, "bug"),
      shortDuration(st.elapsed ?? ""), `${Math.round(st.schedulesPerSecond)}/s`, st.complete ? "complete" : "incomplete"].filter(Boolean).join(" · ");
  }

  private loadSource(id: string): Promise<Source> {
    const have = this.sources.get(id);
    if (have) return Promise.resolve(have);
    let p = this.loading.get(id);
    if (!p) {
      p = this.api.exploration(id).then((e) => {
        const model = new TreeModel();
        for (const n of e.tree ?? []) model.add(n);
        const src: Source = { id, model, exploration: e, bugs: e.bugs ?? [], stats: e.stats };
        this.sources.set(id, src);
        return src;
      });
      this.loading.set(id, p);
      p.catch(() => this.loading.delete(id));
    }
    return p;
  }

  private liveSource(): Source {
    let src = this.sources.get(LIVE);
    if (!src) {
      src = { id: LIVE, model: new TreeModel(), exploration: null, bugs: [], stats: null };
      this.sources.set(LIVE, src);
      this.select.append(h("option", { value: LIVE, "data-testid": "live-option" }, "live exploration"));
      if (!this.current) void this.useSource(LIVE);
    }
    return src;
  }

  private async useSource(id: string): Promise<void> {
    try {
      const src = id === LIVE ? this.liveSource() : await this.loadSource(id);
      this.current = src;
      this.select.value = id;
      this.tree.setModel(src.model);
      this.locks.show(src.exploration?.lockTrees ?? null);
      this.showStats(src.stats);
      if (src.exploration) this.showProgram(src.exploration.program);
      await this.refreshBugs();
    } catch (err) {
      this.fail(err);
    }
  }

  private async refreshBugs(): Promise<void> {
    const src = this.current;
    if (!src) {
      this.bugs.show([], this.traces);
      return;
    }
    let list: BugSummary[];
    if (src.id === LIVE) {
      // A live bug's trace, once saved, says where its goroutines were, as a saved
      // exploration's bugs do.
      list = await Promise.all(src.bugs.map(async (b) => {
        const trace = b.trace ? await this.api.trace({ path: b.trace }).catch(() => null) : null;
        const goroutines = (trace?.verdict?.goroutines ?? []).map(({ stack: _, ...g }) => g);
        return { ...b, exploration: LIVE, traceLoaded: trace !== null, goroutines };
      }));
    } else {
      list = await this.api.bugs(src.id);
    }
    if (src === this.current) this.bugs.show(list, this.traces);
  }

  private bugHref(exploration: string, bug: number, trace?: string): string {
    if (exploration === LIVE) return trace ? `#/timeline?path=${encodeURIComponent(trace)}` : "#/bugs";
    return `#/timeline?exploration=${encodeURIComponent(exploration)}&bug=${bug}`;
  }

  private openBug(bug: number): void {
    const src = this.current;
    if (!src) return;
    location.hash = this.bugHref(src.id, bug, src.bugs.find((b) => b.id === bug)?.trace);
  }

  private async route(): Promise<void> {
    const hash = location.hash.replace(/^#\/?/, "");
    const [path, query = ""] = hash.split("?", 2) as [string, string?];
    const view: ViewName = (["tree", "locks", "timeline", "bugs"] as const).find((v) => v === path) ?? "tree";
    this.view = view;
    for (const [name, el] of this.views) el.hidden = name !== view;
    for (const [name, a] of this.tabs) a.classList.toggle("active", name === view);
    if (view === "tree") this.tree.requestDraw();
    if (view !== "timeline") {
      this.timeline.stopPlay();
      return;
    }
    const q = new URLSearchParams(query);
    let ref: TraceRef | null = null;
    if (q.has("path")) ref = { path: q.get("path")! };
    else if (q.has("exploration") && q.has("bug")) ref = { exploration: q.get("exploration")!, bug: Number(q.get("bug")) };
    if (!ref) return;
    const key = traceRefKey(ref);
    if (key !== this.traceKey) {
      this.traceKey = key;
      try {
        const trace = await this.api.trace(ref);
        if (key !== this.traceKey) return;
        this.timeline.show(trace, "path" in ref ? ref.path : this.bugTitle(ref.exploration, ref.bug));
      } catch (err) {
        this.timeline.showError(`Cannot open this trace: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
    if (this.pendingStep !== null) {
      this.timeline.gotoStep(this.pendingStep);
      this.pendingStep = null;
    }
  }

  private bugTitle(exploration: string, bug: number): string {
    const b = this.sources.get(exploration)?.bugs.find((x) => x.id === bug);
    const x = this.summaries.find((s) => s.id === exploration);
    return b ? `Bug ${bug}: ${b.kind}${b.message ? ` — ${b.message}` : ""}` : `Bug ${bug} of ${x?.name ?? exploration}`;
  }

  private showConnection(): void {
    this.wsEl.textContent = !this.connected ? "offline" : this.streaming ? "live" : "connected";
    this.wsEl.classList.toggle("up", this.connected);
  }

  private message(m: StreamMessage): void {
    if (m.type !== "hello" && !this.streaming) {
      this.streaming = true;
      this.showConnection();
    }
    switch (m.type) {
      case "hello":
        this.showProgram(m.program);
        break;
      case "node": {
        const src = this.liveSource();
        if (src.model.add(nodeOf(m)) && src === this.current) this.tree.changed();
        break;
      }
      case "bug": {
        const src = this.liveSource();
        const { type: _, ...bug } = m;
        // A bug comes again once its trace is saved, naming it.
        const known = src.bugs.find((b) => b.id === bug.id);
        if (known && (known.trace || !bug.trace)) break;
        if (known) Object.assign(known, bug);
        else src.bugs.push(bug);
        if (src === this.current) void this.refreshBugs();
        break;
      }
      case "progress":
      case "done": {
        const src = this.liveSource();
        src.stats = m.stats;
        if (src === this.current) this.showStats(m.stats);
        break;
      }
      case "checkpoint":
        this.debugger = true;
        this.checkpoint(m.step, m.trace);
        break;
    }
  }

  // checkpoint follows the debugger: it shows the trace it stopped in and
  // selects the step, without echoing the step back.
  private checkpoint(step: number, trace: string): void {
    const want = trace ? `#/timeline?path=${encodeURIComponent(trace)}` : "#/timeline";
    const sameTrace = !trace || this.traceKey === traceRefKey({ path: trace }) || this.timeline.name === trace;
    if (sameTrace && this.timeline.hasTrace()) {
      this.timeline.gotoStep(step);
      if (this.view !== "timeline") location.hash = location.hash.startsWith("#/timeline") ? location.hash : want;
      return;
    }
    this.pendingStep = step;
    if (location.hash === want) void this.route();
    else location.hash = want;
  }

  // userSelected tells the debugger where the user went; rapid stepping
  // sends only where the user stopped.
  private userSelected(step: number): void {
    if (!this.debugger) return;
    window.clearTimeout(this.gotoTimer);
    this.gotoTimer = window.setTimeout(() => {
      this.api.goto(step).then(() => {
        this.gotoEl.textContent = `debugger at step ${step}`;
      }, (err: unknown) => {
        this.gotoEl.textContent = `go to step ${step}: ${err instanceof Error ? err.message : String(err)}`;
      });
    }, 150);
  }

  private key(e: KeyboardEvent): void {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    if (this.view === "timeline" && this.timeline.key(e)) e.preventDefault();
  }
}

// nodeOf takes the tree node out of a node message, which carries the
// node's fields beside "type".
function nodeOf(m: StreamMessage & { type: "node" }): TreeNode {
  const { type: _, ...n } = m;
  return n;
}

const token = new URLSearchParams(location.search).get("token") ?? "";
void new App(token).start();

// shortDuration rounds a Go duration ("37.551926ms", "1m2.5s") to what a person reads: three
// significant digits of its largest unit.
function shortDuration(d: string): string {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:([\d.]+)(s|ms|µs|us|ns))?$/.exec(d);
  if (!m || d === "") return d;
  const unit: Record<string, number> = { s: 1, ms: 1e-3, µs: 1e-6, us: 1e-6, ns: 1e-9 };
  const secs = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + (m[3] ? Number(m[3]) * unit[m[4] ?? "s"]! : 0);
  if (secs >= 60) return `${Math.floor(secs / 60)}m${Math.round(secs % 60)}s`;
  if (secs >= 1) return `${secs.toFixed(secs >= 10 ? 1 : 2)}s`;
  return `${(secs * 1000).toPrecision(3)}ms`;
}

// explorationLabel names an exploration file by its test: heddle writes each test's exploration
// to <package>/<Test>/exploration.json.gz (exploration.json before it compressed them).
function explorationLabel(file: string): string {
  const parts = file.split("/");
  const name = parts[parts.length - 1];
  return parts.length >= 2 && (name === "exploration.json.gz" || name === "exploration.json") ? parts[parts.length - 2]! : basename(file);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
