import { clear, h, posText } from "./dom";
import { bugNumber, stateText } from "./ops";
import type { BugSummary, Position, Skip, TraceSummary, Warning } from "./types";

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

  // show lists the bugs, numbered from 1 as their files are, with the runs that found each
  // as the CLI counts them, where each happened (whereOf, by bug id), and the warnings.
  show(bugs: BugSummary[], traces: TraceSummary[], warnings: Warning[] = [], whereOf = new Map<number, (Position | string)[]>(), skips: Skip[] = [], unexplorable = ""): void {
    clear(this.body);
    if (unexplorable) {
      // The CLI's --- SKIP: heddle ran no search, so there is no bug or warning to list.
      this.body.append(h("div", { class: "panel", "data-testid": "unexplorable" },
        h("h3", {}, "Cannot be explored"),
        h("p", { "data-testid": "unexplorable-reason" }, unexplorable)));
    }
    const table = h("table", { class: "bugs", "data-testid": "bugs-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "kind"), h("th", {}, "runs"), h("th", {}, "goroutines"), h("th", {}, "where"), h("th", {}, "replay"), h("th", {}, ""))));
    const tbody = h("tbody", {});
    for (const b of bugs) {
      const where = h("td", { "data-testid": "bug-where", "data-label": "where" });
      const gs = h("td", { "data-testid": "bug-goroutines", "data-label": "goroutines" });
      for (const g of b.goroutines) gs.append(h("div", {}, h("b", {}, g.id), ` ${stateText(g)}`));
      if (!b.goroutines.length) gs.append(h("span", { class: "muted" }, b.traceLoaded ? "none blocked" : "trace not loaded"));
      for (const w of whereOf.get(b.id) ?? b.goroutines.flatMap((g) => (g.pos ? [g.pos] : []))) {
        where.append(typeof w === "string" ? h("div", {}, w) : h("div", { title: w.file }, posText(w)));
      }
      const replay = h("td", { class: "replay", "data-label": "replay" });
      if (b.replay) replay.append(...command(b.replay, "bug"));
      tbody.append(h("tr", { "data-testid": "bug-row", "data-bug": b.id },
        h("td", { "data-label": "bug", "data-testid": "bug-number" }, bugNumber(b.id)),
        h("td", { "data-label": "kind" }, h("span", { class: `verdict-kind verdict-${b.kind}`, "data-testid": "bug-kind" }, b.kind), b.message ? h("div", { class: "muted" }, b.message) : null),
        h("td", { "data-label": "runs", "data-testid": "bug-runs" }, b.hits ?? ""),
        gs, where, replay,
        h("td", {}, b.traceLoaded || b.trace
          ? h("a", { href: this.events.bugHref(b), "data-testid": "bug-open" }, "Timeline")
          : h("span", { class: "muted" }, "no trace"))));
    }
    table.append(tbody);
    this.body.append(h("div", { class: "panel" },
      h("h3", {}, "Bugs ", h("span", { class: "count", "data-testid": "bug-count" }, bugs.length)),
      bugs.length ? table : h("p", { class: "muted" }, "No bugs found.")));
    this.body.append(h("div", { class: "panel", "data-testid": "warnings" },
      h("h3", {}, "Warnings ", h("span", { class: "count", "data-testid": "warning-count" }, warnings.length)),
      warnings.length
        ? h("ul", { class: "warnings-list" }, ...warnings.map((w) => h("li", { "data-testid": "warning", "data-kind": w.kind },
          h("span", { class: "warning-kind" }, w.kind), " ", w.message.replace(new RegExp(`^${w.kind}: `), ""),
          w.hits ? h("span", { class: "muted" }, ` (${w.hits} ${w.hits === 1 ? "run" : "runs"})`) : null,
          w.confirmed ? h("div", { class: "muted" }, w.confirmed) : null,
          w.atomicity?.replay ? h("div", { class: "replay" }, ...command(w.atomicity.replay, "warning")) : null)))
        : h("p", { class: "muted" }, "No warnings: no lockset race, lock-order inversion or atomicity violation.")));
    if (skips.length) {
      // As go test reports them: the subtest's name, and its log, the skip's message last.
      this.body.append(h("div", { class: "panel", "data-testid": "skips" },
        h("h3", {}, "Skipped subtests ", h("span", { class: "count", "data-testid": "skip-count" }, skips.length)),
        h("ul", { class: "warnings-list" }, ...skips.map((k) => h("li", { "data-testid": "skip" },
          h("code", { "data-testid": "skip-test" }, k.test),
          k.output ? h("div", { class: "muted", "data-testid": "skip-output" }, ...k.output.split("\n").map((l) => h("div", {}, l))) : null)))));
    }
    if (traces.length) {
      this.body.append(h("div", { class: "panel" }, h("h3", {}, "Traces"),
        h("ul", { class: "traces", "data-testid": "trace-list" }, ...traces.map((t) =>
          h("li", {}, h("a", { href: this.events.traceHref(t.name), "data-testid": "trace-open" }, t.name),
            ` ${t.verdict || "no verdict"}, ${t.steps} steps`)))));
    }
  }
}

// command shows a command with a button that copies it whole.
function command(text: string, what: string): Node[] {
  const code = h("code", { "data-testid": `${what}-replay` }, text);
  const copy = h("button", { class: "small", "data-testid": `${what}-copy`, title: "Copy the whole command" }, "Copy");
  copy.addEventListener("click", () => void copyText(text, code).then((ok) => {
    copy.textContent = ok ? "Copied" : "Selected: press Ctrl+C";
    setTimeout(() => (copy.textContent = "Copy"), 1500);
  }));
  return [code, document.createTextNode(" "), copy];
}

// copyText copies a command whole to the clipboard. Where the clipboard API is missing or
// refused (a page in an editor's frame), it copies the selected command the older way; if that
// fails too, the command stays selected for the user to copy. It says whether it copied.
async function copyText(text: string, el: HTMLElement): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Fall through to the selection.
  }
  getSelection()?.selectAllChildren(el);
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
}
