// The web view panel: the adapter's web view in an iframe, following the
// debug session it was opened for.

import * as vscode from "vscode";
import { parseCheckpoint, isObject, requests } from "./protocol";
import { Sessions } from "./sessions";
import { errorText } from "./settings";
import { checkWebViewUrl, checkpointMessage, externalFrameUrl, makeNonce, parseFrameMessage, timelineUrl, webviewHtml } from "./webview";

export class WebViewPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private sessionId: string | undefined;

  constructor(private readonly sessions: Sessions) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  get followedSession(): string | undefined {
    return this.sessionId;
  }

  // open shows the web view of a session, at the timeline of a trace if given.
  async open(session: vscode.DebugSession, trace?: string): Promise<void> {
    const body: unknown = await session.customRequest(requests.webview, {});
    const url = checkWebViewUrl(isObject(body) ? body.url : undefined);
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(url.href));
    let frameUrl = externalFrameUrl(external.toString(true), url);
    // Behind an editor's port proxy (code-server) the page comes from the proxy's origin,
    // which the web view's server must be told to accept.
    const origin = new URL(frameUrl).origin;
    if (origin !== url.origin) await session.customRequest(requests.webview, { allowOrigin: origin });
    if (trace !== undefined) frameUrl = timelineUrl(frameUrl, trace);
    const title = `Heddle: ${session.name.replace(/^Heddle:\s*/, "")}`;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        "heddle.webview",
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        {
          enableScripts: true,
          enableCommandUris: false,
          enableForms: false,
          localResourceRoots: [],
          retainContextWhenHidden: true,
        },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.sessionId = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m));
    }
    this.sessionId = session.id;
    this.panel.title = title;
    this.panel.webview.html = webviewHtml({ frameUrl, nonce: makeNonce(), title });
    this.panel.reveal(undefined, true);
  }

  // checkpoint passes the session's heddle/checkpoint event to the page.
  checkpoint(sessionId: string, body: unknown): boolean {
    if (!this.panel || sessionId !== this.sessionId) return false;
    const c = parseCheckpoint(body);
    if (!c) return false;
    void this.panel.webview.postMessage(checkpointMessage(c.index));
    return true;
  }

  // follow moves the open panel to session when the session it followed has ended: the old
  // session's web view went with it, and the page would only say "offline". It reports
  // whether the panel moved.
  async follow(session: vscode.DebugSession): Promise<boolean> {
    if (!this.panel || session.id === this.sessionId || this.sessions.get(this.sessionId)) return false;
    await this.open(session);
    return true;
  }

  // receive honours only {type: "gotoCheckpoint", index} from the page.
  receive(m: unknown): boolean {
    const g = parseFrameMessage(m);
    if (!g) return false;
    const s = this.sessions.get(this.sessionId);
    if (!s) return false;
    s.customRequest(requests.gotoCheckpoint, { index: g.index }).then(undefined, (err: unknown) => {
      void vscode.window.showErrorMessage(`Heddle: cannot go to checkpoint ${g.index}: ${errorText(err)}`);
    });
    return true;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
