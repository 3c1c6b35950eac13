// The live debug sessions of type heddle.

import * as vscode from "vscode";

export class Sessions implements vscode.Disposable {
  private readonly live = new Map<string, vscode.DebugSession>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly endListeners: Array<(s: vscode.DebugSession) => void> = [];

  constructor() {
    this.subscriptions.push(
      vscode.debug.onDidStartDebugSession((s) => {
        if (s.type === "heddle") this.live.set(s.id, s);
      }),
      vscode.debug.onDidTerminateDebugSession((s) => {
        if (!this.live.delete(s.id)) return;
        for (const l of [...this.endListeners]) l(s);
      }),
    );
    const a = vscode.debug.activeDebugSession;
    if (a?.type === "heddle") this.live.set(a.id, a);
  }

  onDidEnd(listener: (s: vscode.DebugSession) => void): void {
    this.endListeners.push(listener);
  }

  get(id: string | undefined): vscode.DebugSession | undefined {
    return id === undefined ? undefined : this.live.get(id);
  }

  // active is the focused heddle session, or the only live one.
  active(): vscode.DebugSession | undefined {
    const a = vscode.debug.activeDebugSession;
    if (a?.type === "heddle") return a;
    if (this.live.size === 1) return [...this.live.values()][0];
    return undefined;
  }

  require(): vscode.DebugSession {
    const s = this.active();
    if (!s) throw new Error("There is no Heddle debug session: start one with the \"heddle\" debug type.");
    return s;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
