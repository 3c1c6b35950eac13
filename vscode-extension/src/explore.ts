// "Explore from Here": heddle/explore on the stopped session, with progress
// in a cancellable notification and in the status bar, fed by the adapter's
// heddle/progress, heddle/bugFound and heddle/exploreDone events.

import * as vscode from "vscode";
import { Settings } from "./config";
import { Exploration, ExplorationsModel, doneMessage, progressMessage } from "./model";
import { events, isObject, requests, wireIdOf } from "./protocol";
import { Sessions } from "./sessions";
import { errorText } from "./settings";

interface Waiter {
  resolve: () => void;
  progress: vscode.Progress<{ message?: string }>;
}

export class ExploreController implements vscode.Disposable {
  readonly status: vscode.StatusBarItem;
  private readonly waiters = new Map<string, Waiter>();
  private lastKey: string | undefined;

  constructor(
    private readonly model: ExplorationsModel,
    private readonly sessions: Sessions,
    private readonly settings: () => Settings,
  ) {
    this.status = vscode.window.createStatusBarItem("heddle.exploration", vscode.StatusBarAlignment.Left, 50);
    this.status.name = "Heddle exploration";
    this.status.command = "heddle.explorations.focus";
    sessions.onDidEnd((s) => this.sessionEnded(s));
  }

  // handleEvent takes every custom event of a heddle session.
  handleEvent(e: vscode.DebugSessionCustomEvent): void {
    if (e.session.type !== "heddle") return;
    const x = this.model.handleEvent(e.session.id, e.session.name, e.event, e.body);
    if (!x) return;
    this.lastKey = x.key;
    this.showStatus(x);
    const w = this.waiters.get(x.key);
    if (w && e.event !== events.bugFound) w.progress.report({ message: progressMessage(x) });
    if (x.state !== "running") this.finish(x, e.event === events.exploreDone);
  }

  private finish(x: Exploration, announce: boolean): void {
    const w = this.waiters.get(x.key);
    if (w) {
      this.waiters.delete(x.key);
      w.resolve();
    }
    if (!announce) return;
    const text = doneMessage(x);
    if (x.state === "failed") {
      void vscode.window.showErrorMessage(text);
    } else if (x.bugCount > 0) {
      void vscode.window.showWarningMessage(text, "Show Bugs").then((pick) => {
        if (pick) void vscode.commands.executeCommand("heddle.explorations.focus");
      });
    } else {
      void vscode.window.showInformationMessage(text);
    }
  }

  private showStatus(x: Exploration): void {
    const icon = x.state === "running" ? "$(sync~spin)" : x.bugCount > 0 ? "$(bug)" : x.state === "failed" ? "$(error)" : "$(check)";
    this.status.text = `${icon} Heddle: ${progressMessage(x)}`;
    this.status.tooltip = `${doneMessage(x)}\nClick to show the Heddle view.`;
    this.status.show();
  }

  private sessionEnded(s: vscode.DebugSession): void {
    this.model.sessionEnded(s.id);
    for (const x of this.model.explorations()) {
      if (x.sessionId === s.id) this.finish(x, false);
    }
    const last = this.lastKey ? this.model.get(this.lastKey) : undefined;
    if (!last || last.sessionId === s.id) this.status.hide();
  }

  // explore starts an exploration from where the session is stopped and
  // resolves when it is done, cancelled, or the session ends.
  async explore(session?: vscode.DebugSession): Promise<Exploration | undefined> {
    const s = session ?? this.sessions.require();
    const defaults = this.settings();
    const conf = s.configuration as { strategy?: unknown; budget?: unknown };
    const strategy = typeof conf.strategy === "string" && conf.strategy ? conf.strategy : defaults.strategy;
    const budget = typeof conf.budget === "string" && conf.budget ? conf.budget : defaults.budget;
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Heddle: exploring (${strategy}, ${budget})`, cancellable: true },
      async (progress, token) => {
        const body: unknown = await s.customRequest(requests.explore, { strategy, budget });
        const id = isObject(body) ? wireIdOf(body.id) : undefined;
        if (id === undefined) throw new Error("heddle/explore: the response has no exploration id");
        const x = this.model.start(s.id, s.name, id, { strategy, budget });
        this.lastKey = x.key;
        this.showStatus(x);
        if (x.state !== "running") {
          // Its events came before the response and announced its end.
          this.finish(x, false);
          return x;
        }
        progress.report({ message: progressMessage(x) });
        const cancel = token.onCancellationRequested(() => {
          s.customRequest(requests.cancel, { id }).then(undefined, (err: unknown) => {
            void vscode.window.showErrorMessage(`Heddle: cannot cancel the exploration: ${errorText(err)}`);
          });
        });
        try {
          await new Promise<void>((resolve) => this.waiters.set(x.key, { resolve, progress }));
        } finally {
          cancel.dispose();
        }
        return x;
      },
    );
  }

  // cancel stops a running exploration of the model.
  async cancel(key: string): Promise<void> {
    const x = this.model.get(key);
    if (!x || x.state !== "running") return;
    const s = this.sessions.get(x.sessionId);
    if (!s) throw new Error("The debug session of this exploration has ended.");
    await s.customRequest(requests.cancel, { id: x.wireId });
  }

  dispose(): void {
    this.status.dispose();
    for (const w of this.waiters.values()) w.resolve();
    this.waiters.clear();
  }
}
