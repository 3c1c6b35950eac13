import { clear, h, posText } from "./dom";
import { stateText } from "./ops";
import type { BugSummary, TraceSummary } from "./types";

export interface BugsEvents {
  // timelineHref returns the link that opens a bug's timeline.
  bugHref(bug: BugSummary): string;
  traceHref(name: string): string;
}

// BugsView lists the bugs of the shown exploration, where each happened, and
// how to replay it, plus every trace the server holds.
export class BugsView {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;

  constructor(private readonly events: BugsEvents) {
    this.body = h("div", { class: "bugs-body" });
    this.el = h("section", { class: "view bugs-view", "data-testid": "view-bugs" }, this.body);
  }

  show(bugs: BugSummary[], traces: TraceSummary[]): void {
    clear(this.body);
    const table = h("table", { class: "bugs", "data-testid": "bugs-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "kind"), h("th", {}, "goroutines"), h("th", {}, "where"), h("th", {}, "replay"), h("th", {}, ""))));
    const tbody = h("tbody", {});
    for (const b of bugs) {
      const where = h("td", { "data-testid": "bug-where", "data-label": "where" });
      const gs = h("td", { "data-testid": "bug-goroutines", "data-label": "goroutines" });
      if (b.goroutines.length) {
        for (const g of b.goroutines) {
          gs.append(h("div", {}, h("b", {}, g.id), ` ${stateText(g)}`));
          where.append(h("div", { title: g.pos?.file ?? "" }, posText(g.pos) || "–"));
        }
      } else {
        gs.append(b.traceLoaded ? "–" : h("span", { class: "muted" }, "trace not loaded"));
      }
      const replay = h("td", { class: "replay", "data-label": "replay" });
      if (b.replay) {
        const code = h("code", { "data-testid": "bug-replay" }, b.replay);
        const copy = h("button", { class: "small", "data-testid": "bug-copy", title: "Copy the command" }, "Copy");
        copy.addEventListener("click", () => {
          navigator.clipboard?.writeText(b.replay!).then(() => {
            copy.textContent = "Copied";
            setTimeout(() => (copy.textContent = "Copy"), 1200);
          }, () => {
            getSelection()?.selectAllChildren(code);
          });
        });
        replay.append(code, " ", copy);
      }
      tbody.append(h("tr", { "data-testid": "bug-row", "data-bug": b.id },
        h("td", { "data-label": "bug" }, b.id),
        h("td", { "data-label": "kind" }, h("span", { class: `verdict-kind verdict-${b.kind}`, "data-testid": "bug-kind" }, b.kind), b.message ? h("div", { class: "muted" }, b.message) : null),
        gs, where, replay,
        h("td", {}, b.traceLoaded || b.trace
          ? h("a", { href: this.events.bugHref(b), "data-testid": "bug-open" }, "Timeline")
          : h("span", { class: "muted" }, "no trace"))));
    }
    table.append(tbody);
    this.body.append(h("div", { class: "panel" },
      h("h3", {}, "Bugs ", h("span", { class: "count", "data-testid": "bug-count" }, bugs.length)),
      bugs.length ? table : h("p", { class: "muted" }, "No bugs found.")));
    if (traces.length) {
      this.body.append(h("div", { class: "panel" }, h("h3", {}, "Traces"),
        h("ul", { class: "traces", "data-testid": "trace-list" }, ...traces.map((t) =>
          h("li", {}, h("a", { href: this.events.traceHref(t.name), "data-testid": "trace-open" }, t.name),
            ` ${t.verdict || "no verdict"}, ${t.steps} steps`)))));
    }
  }
}
