import { Api, ApiError, traceRefKey, type TraceRef } from "./api";
import { BugsView } from "./bugs";
import { basename, h } from "./dom";
import { LockView } from "./locks";
import { TimelineView } from "./timeline";
import { TreeModel } from "./tree/model";
import { TreeView } from "./tree/view";
import { bugNumber } from "./ops";
import type { Bug, BugSummary, Exploration, ExplorationSummary, Position, Program, Skip, Stats, StreamMessage, Trace, TraceSummary, TreeNode, Warning } from "./types";

type ViewName = "tree" | "locks" | "timeline" | "bugs";

// A Source is something whose schedule tree can be shown: an exploration
// file the server holds, or the live exploration streaming in.
interface Source {
  id: string;
  // The test whose exploration it is, as the CLI names it.
  program: Program | null;
  model: TreeModel;
  exploration: Exploration | null;
  bugs: Bug[];
  stats: Stats | null;
  // The traces of its bugs, by bug id, once loaded: they name the objects and say where.
  traces: Map<number, Trace | null>;
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
      treeLegend(): string[];
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
  // The live exploration that nodes go to: a test's, from its start message, or the one of a
  // stream that names no test.
  private live: Source | null = null;
  private liveCount = 0;
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
    this.select.addEventListener("change", () => void this.useSource(this.select.value).then(() => {
      // Another test's exploration: the Timeline opens on its first bug.
      this.traceKey = "";
      this.timeline.showError("Open a bug from the tree or the bugs list to see its timeline.");
      this.timeline.name = "";
      if (this.view !== "timeline") return;
      if (location.hash === "#/timeline") void this.route();
      else location.hash = "#/timeline";
    }));
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
      treeLegend: () => this.tree.legendKinds(),
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
        this.select.append(h("option", { value: x.id, title: x.name, "data-testid": "exploration-option" }, `${testLabel(x.program, x.name)}: ${verdictText(x.stats, x)}`));
      }
      // The page opens on the first test with a bug, where a person looks first.
      const first = explorations.find((x) => x.bugs > 0) ?? explorations[0];
      if (first) await this.useSource(first.id);
      else this.showStats(session.stats, null);
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

  // showStats says what the CLI's statistics line says of a test's search (heddle test -v:
  // "1 bug; portfolio: 26 runs (10 buggy, 0 cut), search complete"), then the tree's size and
  // the time the search took.
  private showStats(st: Stats | null, strategy: string | null, skips?: Exploration | null): void {
    if (!st) {
      this.statsEl.textContent = "";
      return;
    }
    if (skips?.unexplorable) {
      // No search ran: the CLI's SKIP line says why.
      this.statsEl.textContent = `cannot be explored: ${skips.unexplorable}`;
      return;
    }
    let line = `${verdictText(st, skips ?? undefined)}; ${strategy ? `${strategy}: ` : ""}${count(st.runs, "run")}`;
    if (st.runs > 0) {
      line += ` (${st.buggyRuns ?? 0} buggy, ${st.cut ?? 0} cut`;
      if (st.diverged) line += `, ${st.diverged} diverging, skipped`;
      if (st.timeoutRuns) line += `, ${st.timeoutRuns} in the timeout search`;
      line += ")";
    }
    line += st.complete ? ", search complete" : ", search stopped by the budget";
    this.statsEl.textContent = [line, count(st.decisions, "decision"), shortDuration(st.elapsed ?? "")].filter(Boolean).join(" · ");
  }

  private loadSource(id: string): Promise<Source> {
    const have = this.sources.get(id);
    if (have) return Promise.resolve(have);
    let p = this.loading.get(id);
    if (!p) {
      p = this.api.exploration(id).then((e) => {
        const model = new TreeModel();
        for (const n of e.tree ?? []) model.add(n);
        for (const b of e.bugs ?? []) if (b.hits) model.hits.set(b.id, b.hits);
        const src: Source = { id, program: e.program, model, exploration: e, bugs: e.bugs ?? [], stats: e.stats, traces: new Map() };
        this.sources.set(id, src);
        return this.loadTraces(src).then(() => src);
      });
      this.loading.set(id, p);
      p.catch(() => this.loading.delete(id));
    }
    return p;
  }

  // loadTraces loads the traces of a source's bugs: they name the objects of the tree's steps
  // as the program does, and say where each bug happened.
  private async loadTraces(src: Source): Promise<void> {
    const names = new Map<string, string>(Object.entries(src.exploration?.lockTrees?.names ?? {}));
    const kinds = new Map<string, string>();
    await Promise.all(src.bugs.filter((b) => b.trace && !src.traces.has(b.id)).map(async (b) => {
      const ref = src.exploration ? { exploration: src.id, bug: b.id } : { path: b.trace! };
      src.traces.set(b.id, await this.api.trace(ref).catch(() => null));
    }));
    for (const t of src.traces.values()) {
      for (const o of t?.objects ?? []) {
        if (o.name && !names.has(o.id)) names.set(o.id, o.name);
        kinds.set(o.id, o.kind);
      }
    }
    src.model.names = { name: (id) => names.get(id), kind: (id) => kinds.get(id) };
    src.model.version++;
  }

  // liveSource returns the live exploration that nodes go to, made on the first node of a
  // stream that names no test.
  private liveSource(): Source {
    return this.live ?? this.startLive(null);
  }

  // startLive starts the live tree of a test: a live exploration is one tree per test, named
  // by the test, as the CLI reports it. The page follows the newest one unless the user
  // chose a saved exploration.
  private startLive(program: Program | null): Source {
    const id = this.liveCount === 0 ? LIVE : `${LIVE}-${this.liveCount}`;
    this.liveCount++;
    const src: Source = { id, program, model: new TreeModel(), exploration: null, bugs: [], stats: null, traces: new Map() };
    this.sources.set(id, src);
    this.live = src;
    const label = program?.test ? `${testLabel(program, "")} (live)` : "live exploration";
    this.select.append(h("option", { value: id, "data-testid": "live-option", title: [program?.package, program?.test].filter(Boolean).join(" ") }, label));
    if (!this.current || this.current.exploration === null) void this.useSource(id);
    return src;
  }

  private isLive(id: string): boolean {
    return id === LIVE || id.startsWith(`${LIVE}-`);
  }

  private async useSource(id: string): Promise<void> {
    try {
      const src = this.isLive(id) ? this.sources.get(id) ?? this.liveSource() : await this.loadSource(id);
      this.current = src;
      this.select.value = id;
      this.tree.setModel(src.model);
      this.locks.show(src.exploration?.lockTrees ?? null);
      this.showStats(src.stats, src.exploration?.strategy ?? null, src.exploration);
      if (src.program) this.showProgram(src.program);
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
    if (!src.exploration) {
      // A live bug's trace, once saved, says where its goroutines were, as a saved
      // exploration's bugs do.
      list = await Promise.all(src.bugs.map(async (b) => {
        const trace = b.trace ? await this.api.trace({ path: b.trace }).catch(() => null) : null;
        const goroutines = (trace?.verdict?.goroutines ?? []).map(({ stack: _, ...g }) => g);
        return { ...b, exploration: src.id, traceLoaded: trace !== null, goroutines };
      }));
    } else {
      list = await this.api.bugs(src.id);
    }
    const warnings: Warning[] = [...(src.exploration?.warnings ?? [])];
    // Lock-order inversions are warnings too; the Lock trees tab draws them.
    for (const w of src.exploration?.lockTrees?.warnings ?? []) {
      const name = (l: string): string => src.exploration?.lockTrees?.names?.[l] ?? l;
      warnings.push({
        kind: "lock order",
        hits: 0, // the lock trees of all runs together show it, not counted runs
        message: `${name(w.locks[0])} and ${name(w.locks[1])} are taken in both orders: ${w.first.g} took ${w.first.path.map(name).join(" then ")}; ${w.second.g} took ${w.second.path.map(name).join(" then ")}`,
      });
    }
    const where = new Map(list.map((b) => [b.id, bugWhere(b, src.traces.get(b.id) ?? null)]));
    if (src === this.current) this.bugs.show(list, this.traces, warnings, where, src.exploration?.skips ?? [], src.exploration?.unexplorable ?? "");
  }

  private bugHref(exploration: string, bug: number, trace?: string): string {
    if (this.isLive(exploration)) return trace ? `#/timeline?path=${encodeURIComponent(trace)}` : "#/bugs";
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
    // The Timeline opens on the first bug of the exploration shown, unless a trace is shown.
    if (!ref && !this.timeline.hasTrace()) ref = this.firstBug();
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

  // firstBug names the trace of the first bug of the exploration shown, if it has one.
  private firstBug(): TraceRef | null {
    const src = this.current;
    const b = src?.bugs.find((x) => x.trace);
    if (!src || !b) return null;
    return src.exploration ? { exploration: src.id, bug: b.id } : { path: b.trace! };
  }

  private bugTitle(exploration: string, bug: number): string {
    const b = this.sources.get(exploration)?.bugs.find((x) => x.id === bug);
    const x = this.summaries.find((s) => s.id === exploration);
    return b ? `Bug ${bugNumber(bug)}: ${b.kind}${b.message ? ` — ${b.message}` : ""}` : `Bug ${bugNumber(bug)} of ${x?.name ?? exploration}`;
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
        // The session's program is the first file's; the page may already show another test.
        if (!this.current?.program) this.showProgram(m.program);
        break;
      case "start": {
        // A test's exploration begins: its nodes make a tree of its own. An empty live tree
        // (made before the stream named its test) becomes the test's.
        const empty = this.live && this.live.model.byId.size === 0 ? this.live : null;
        if (empty) {
          empty.program = m.program;
          const opt = [...this.select.options].find((o) => o.value === empty.id);
          if (opt) opt.textContent = `${testLabel(m.program, "")} (live)`;
        } else {
          this.startLive(m.program);
        }
        if (this.current === this.live) this.showProgram(m.program);
        break;
      }
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
        if (src === this.current) this.showStats(m.stats, null);
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

// testLabel names a test as a person tells tests apart: the last element of its package's
// path and the test (abbalock TestBug), else the file's directory, as heddle writes each
// test's exploration to <package>/<Test>/exploration.json.gz (exploration.json before it
// compressed them).
function testLabel(p: Program | null, file: string): string {
  if (p?.test) return [p.package?.split("/").pop(), p.test].filter(Boolean).join(" ");
  const parts = file.split("/");
  const name = parts[parts.length - 1];
  return parts.length >= 2 && (name === "exploration.json.gz" || name === "exploration.json") ? parts[parts.length - 2]! : basename(file);
}

// verdictText is a test's verdict as the CLI says it: "1 bug", "cannot be explored" or
// "skipped" for a test that heddle could not explore or that skipped itself (--- SKIP),
// "clean", or "cut" when runs reached the step bound; then the subtests that skipped
// themselves, one --- SKIP line each in the CLI's report.
function verdictText(st: Stats, skips?: { skipped?: boolean; skips?: Skip[] | null; unexplorable?: string }): string {
  let text = st.bugs > 0 ? count(st.bugs, "bug") : skips?.unexplorable ? "cannot be explored" : skips?.skipped ? "skipped" : st.cut ? "cut" : "clean";
  const n = skips?.skips?.length ?? 0;
  if (n > 0) text += `, ${n} ${n === 1 ? "subtest" : "subtests"} skipped`;
  return text;
}

// bugWhere says where a bug happened: where its goroutines were when the run ended, else the
// position its message names (a failed test's file:line), else its last step's.
function bugWhere(b: BugSummary, trace: Trace | null): (Position | string)[] {
  const at = b.goroutines.flatMap((g) => (g.pos ? [g.pos] : []));
  if (at.length > 0) return at;
  const m = /([\w.-]+\.go:\d+)/.exec(b.message ?? "");
  if (m) return [m[1]!];
  const last = [...(trace?.events ?? [])].reverse().find((e) => e.pos);
  if (last?.pos) return [last.pos];
  return [b.traceLoaded || trace ? "no position recorded" : "trace not loaded"];
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
