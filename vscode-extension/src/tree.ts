// The "Heddle" view in Run and Debug: explorations and their bugs.

import * as vscode from "vscode";
import {
  Exploration,
  ExplorationsModel,
  bugDescription,
  bugLabel,
  bugTooltip,
  explorationDescription,
  explorationLabel,
  explorationTooltip,
} from "./model";

export type Node =
  | { kind: "exploration"; key: string }
  | { kind: "bug"; key: string; bugId: string };

export function isBugNode(v: unknown): v is Node & { kind: "bug" } {
  const n = v as Partial<Node & { kind: "bug" }> | undefined;
  return !!n && n.kind === "bug" && typeof n.key === "string" && typeof n.bugId === "string";
}

export function isExplorationNode(v: unknown): v is Node & { kind: "exploration" } {
  const n = v as Partial<Node> | undefined;
  return !!n && n.kind === "exploration" && typeof n.key === "string";
}

function explorationIcon(x: Exploration): vscode.ThemeIcon {
  switch (x.state) {
    case "running":
      return new vscode.ThemeIcon("sync~spin");
    case "failed":
      return new vscode.ThemeIcon("error", new vscode.ThemeColor("errorForeground"));
    case "cancelled":
    case "ended":
      return new vscode.ThemeIcon(x.bugCount > 0 ? "bug" : "circle-slash");
    default:
      return x.bugCount > 0 ? new vscode.ThemeIcon("bug", new vscode.ThemeColor("errorForeground")) : new vscode.ThemeIcon("pass");
  }
}

export class HeddleTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: { dispose(): void };

  private shown = "";

  constructor(private readonly model: ExplorationsModel) {
    // A refresh drops VS Code's handles on the tree's elements until it has asked for them
    // again, and a command clicked on a row in between gets no element: refresh only when
    // what the rows show has changed, not on every event of a running search.
    this.sub = model.onDidChange(() => {
      const now = this.rendering();
      if (now !== this.shown) {
        this.shown = now;
        this.emitter.fire();
      }
    });
  }

  private rendering(): string {
    const rows: unknown[] = [];
    for (const x of this.getChildren()) {
      const item = this.getTreeItem(x);
      rows.push([item.id, item.label, item.description, item.tooltip, item.contextValue, (item.iconPath as vscode.ThemeIcon | undefined)?.id]);
      for (const b of this.getChildren(x)) {
        const bi = this.getTreeItem(b);
        rows.push([bi.id, bi.label, bi.description, bi.tooltip]);
      }
    }
    return JSON.stringify(rows);
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.model.explorations().reverse().map((x) => ({ kind: "exploration", key: x.key }));
    if (node.kind === "exploration") {
      return (this.model.get(node.key)?.bugs ?? []).map((b) => ({ kind: "bug", key: node.key, bugId: b.id }));
    }
    return [];
  }

  getParent(node: Node): Node | undefined {
    return node.kind === "bug" ? { kind: "exploration", key: node.key } : undefined;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const x = this.model.get(node.key);
    if (!x) return new vscode.TreeItem("(gone)");
    if (node.kind === "exploration") {
      const hasBugs = x.bugs.length > 0;
      const item = new vscode.TreeItem(
        explorationLabel(x),
        hasBugs ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      // A new id once bugs arrive, so that VS Code applies the expanded state.
      item.id = `${x.key}${hasBugs ? "\u0000bugs" : ""}`;
      item.description = explorationDescription(x);
      item.tooltip = explorationTooltip(x);
      item.iconPath = explorationIcon(x);
      item.contextValue = x.state === "running" ? "heddleExplorationRunning" : "heddleExploration";
      return item;
    }
    const bug = x.bugs.find((b) => b.id === node.bugId);
    if (!bug) return new vscode.TreeItem("(gone)");
    const item = new vscode.TreeItem(bugLabel(bug), vscode.TreeItemCollapsibleState.None);
    item.id = `${x.key}\u0000bug\u0000${bug.id}`;
    item.description = bugDescription(bug);
    item.tooltip = bugTooltip(bug);
    item.iconPath = new vscode.ThemeIcon("bug", new vscode.ThemeColor("errorForeground"));
    item.contextValue = "heddleBug";
    item.command = { command: "heddle.revealBug", title: "Go to Bug", arguments: [node] };
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}
