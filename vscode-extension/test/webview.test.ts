import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { beforeEach, describe, test } from "node:test";
import { WebViewPanel } from "../src/panel";
import { Sessions } from "../src/sessions";
import {
  checkWebViewUrl,
  contentSecurityPolicy,
  externalFrameUrl,
  frameOrigin,
  parseFrameMessage,
  timelineUrl,
  webviewHtml,
  wrapperScript,
} from "../src/webview";
import { FakeSession, Uri, debug, mock, sessions as fire } from "./vscode-mock";

describe("messages from the web page", () => {
  test("only {type: gotoCheckpoint, index} is honoured", () => {
    assert.deepEqual(parseFrameMessage({ type: "gotoCheckpoint", index: 0 }), { type: "gotoCheckpoint", index: 0 });
    assert.deepEqual(parseFrameMessage({ index: 42, type: "gotoCheckpoint" }), { type: "gotoCheckpoint", index: 42 });
    const rejected: unknown[] = [
      undefined,
      null,
      "gotoCheckpoint",
      [{ type: "gotoCheckpoint", index: 1 }],
      { type: "gotoCheckpoint" },
      { type: "gotoCheckpoint", index: -1 },
      { type: "gotoCheckpoint", index: 1.5 },
      { type: "gotoCheckpoint", index: "3" },
      { type: "gotoCheckpoint", index: Number.NaN },
      { type: "gotoCheckpoint", index: 2 ** 60 },
      { type: "gotoCheckpoint", index: 1, command: "workbench.action.terminal.new" },
      { type: "command", command: "workbench.action.terminal.new", index: 1 },
      { type: "checkpoint", index: 1 },
      { type: "GotoCheckpoint", index: 1 },
      Object.assign(Object.create({ inherited: true }), { type: "gotoCheckpoint", index: 1 }),
    ];
    for (const m of rejected) assert.equal(parseFrameMessage(m), undefined, JSON.stringify(m));
  });
});

describe("the wrapper page", () => {
  const url = "http://127.0.0.1:43210/?token=s3cr%C3%A9t&x=<y>";

  test("the Content-Security-Policy allows only the web view's origin as a frame", () => {
    assert.equal(
      contentSecurityPolicy("http://127.0.0.1:43210", "abc123+/="),
      "default-src 'none'; frame-src http://127.0.0.1:43210; script-src 'nonce-abc123+/='; style-src 'nonce-abc123+/='; base-uri 'none'; form-action 'none'",
    );
    assert.throws(() => contentSecurityPolicy("http://127.0.0.1:1; script-src *", "n"));
    assert.throws(() => contentSecurityPolicy("http://127.0.0.1:1", "n' 'unsafe-inline"));
    assert.equal(frameOrigin(url), "http://127.0.0.1:43210");
    assert.equal(frameOrigin("https://example-proxy.test:8443/proxy/43210/?token=t"), "https://example-proxy.test:8443");
    assert.throws(() => frameOrigin("javascript:alert(1)"));
  });

  test("the HTML carries the policy, the nonce and the escaped URL", () => {
    const html = webviewHtml({ frameUrl: url, nonce: "N0nce", title: "Heddle: <TestX>" });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
    assert.ok(csp, "a CSP meta element");
    assert.equal(csp[1], contentSecurityPolicy("http://127.0.0.1:43210", "N0nce").replace(/'/g, "&#39;"));
    assert.match(html, /<iframe id="heddle-frame" title="Heddle: &#60;TestX&#62;" src="http:\/\/127\.0\.0\.1:43210\/\?token=s3cr%C3%A9t&#38;x=&#60;y&#62;" sandbox="allow-scripts allow-same-origin"/);
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="N0nce">']);
    const styles = html.match(/<style[^>]*>/g) ?? [];
    assert.deepEqual(styles, ['<style nonce="N0nce">']);
    assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline event handlers");
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  });

  test("the web view URL must be loopback http", () => {
    assert.equal(checkWebViewUrl("http://127.0.0.1:1234/?token=x").port, "1234");
    assert.equal(checkWebViewUrl("http://localhost:1234/").hostname, "localhost");
    assert.equal(checkWebViewUrl("http://[::1]:1234/").hostname, "[::1]");
    for (const bad of [undefined, 42, "not a url", "http://10.0.0.2:1234/", "https://heddle.example/", "file:///etc/passwd", "javascript:alert(1)"]) {
      assert.throws(() => checkWebViewUrl(bad), String(bad));
    }
  });

  test("the token survives a forwarder that drops the query", () => {
    const original = new URL("http://127.0.0.1:43210/?token=abc");
    assert.equal(externalFrameUrl("http://127.0.0.1:8080/proxy/43210/", original), "http://127.0.0.1:8080/proxy/43210/?token=abc");
    assert.equal(externalFrameUrl("http://127.0.0.1:43210/?token=abc", original), "http://127.0.0.1:43210/?token=abc", "not doubled");
    assert.equal(externalFrameUrl("https://fwd.test/?tunnel=1", original), "https://fwd.test/?tunnel=1&token=abc");
  });

  test("a timeline URL names the trace in the fragment", () => {
    assert.equal(
      timelineUrl("http://127.0.0.1:1/?token=t", "/w/.heddle/deadlock 1.trace.json"),
      "http://127.0.0.1:1/?token=t#/timeline?path=%2Fw%2F.heddle%2Fdeadlock%201.trace.json",
    );
  });
});

// runWrapper runs the wrapper script with a fake window, document, iframe
// and acquireVsCodeApi, and returns handles on them.
function runWrapper(origin: string) {
  const listeners: Array<(e: unknown) => void> = [];
  const toExtension: unknown[] = [];
  const toFrame: Array<{ data: unknown; target: string }> = [];
  const frameWindow = { postMessage: (data: unknown, target: string) => toFrame.push({ data, target }) };
  const parent = { name: "parent" };
  const window = { parent, addEventListener: (type: string, l: (e: unknown) => void) => type === "message" && listeners.push(l) };
  const document = { getElementById: (id: string) => (id === "heddle-frame" ? { contentWindow: frameWindow } : null) };
  runInNewContext(wrapperScript(origin), {
    window,
    document,
    acquireVsCodeApi: () => ({ postMessage: (m: unknown) => toExtension.push(m) }),
  });
  const dispatch = (source: unknown, eventOrigin: string, data: unknown) => {
    for (const l of listeners) l({ source, origin: eventOrigin, data });
  };
  return { toExtension, toFrame, frameWindow, parent, dispatch };
}

describe("the wrapper script (run in a VM)", () => {
  const origin = "http://127.0.0.1:43210";

  test("passes gotoCheckpoint from the iframe to the extension, nothing else", () => {
    const w = runWrapper(origin);
    w.dispatch(w.frameWindow, origin, { type: "gotoCheckpoint", index: 5 });
    w.dispatch(w.frameWindow, origin, { type: "gotoCheckpoint", index: -1 });
    w.dispatch(w.frameWindow, origin, { type: "gotoCheckpoint", index: 6, extra: 1 });
    w.dispatch(w.frameWindow, origin, { type: "command", command: "x" });
    w.dispatch(w.frameWindow, "http://127.0.0.1:9", { type: "gotoCheckpoint", index: 7 });
    w.dispatch({ other: true }, origin, { type: "gotoCheckpoint", index: 8 });
    w.dispatch(w.parent, "vscode-webview://x", { type: "gotoCheckpoint", index: 9 });
    assert.deepEqual(w.toExtension.map((m) => JSON.stringify(m)), [JSON.stringify({ type: "gotoCheckpoint", index: 5 })]);
  });

  test("passes checkpoint from the extension to the iframe, at its origin only", () => {
    const w = runWrapper(origin);
    w.dispatch(w.parent, "vscode-webview://x", { type: "checkpoint", index: 12 });
    w.dispatch(w.parent, "vscode-webview://x", { type: "checkpoint", index: "12" });
    w.dispatch(w.parent, "vscode-webview://x", { type: "eval", index: 1 });
    w.dispatch(w.frameWindow, origin, { type: "checkpoint", index: 13 });
    w.dispatch({ other: true }, origin, { type: "checkpoint", index: 14 });
    assert.deepEqual(w.toFrame.map((m) => JSON.stringify(m)), [JSON.stringify({ data: { type: "checkpoint", index: 12 }, target: origin })]);
    assert.deepEqual(w.toExtension, []);
  });
});

describe("WebViewPanel (with the vscode mock)", () => {
  beforeEach(() => mock.reset());

  function setup() {
    const session = new FakeSession("s1", "TestTransfer", {}, (command) => {
      if (command === "heddle/webview") return { url: "http://127.0.0.1:43210/?token=tok" };
      return {};
    });
    debug.activeDebugSession = session;
    const sessions = new Sessions();
    fire.start(session);
    const panel = new WebViewPanel(sessions);
    return { session, sessions, panel };
  }

  test("opens the session's web view through asExternalUri and follows its checkpoints", async () => {
    const { session, panel } = setup();
    // A forwarder that drops the query, as code-server's does: the token is put back.
    mock.externalUri = () => Uri.parse("https://forwarded.test:8443/proxy/43210/");
    await panel.open(session as never);
    // The proxy's origin is a different one: the adapter is told to accept it.
    assert.deepEqual(session.requests, [
      { command: "heddle/webview", args: {} },
      { command: "heddle/webview", args: { allowOrigin: "https://forwarded.test:8443" } },
    ]);
    assert.equal(mock.panels.length, 1);
    const p = mock.panels[0]!;
    assert.equal(p.options.enableScripts, true);
    assert.equal(p.options.enableCommandUris, false);
    assert.deepEqual(p.options.localResourceRoots, []);
    assert.match(p.webview.html, /frame-src https:\/\/forwarded\.test:8443;/);
    assert.match(p.webview.html, /src="https:\/\/forwarded\.test:8443\/proxy\/43210\/\?token=tok"/);

    assert.equal(panel.checkpoint("s1", { index: 4, goroutine: "G1.2" }), true);
    assert.equal(panel.checkpoint("other", { index: 5 }), false, "another session's checkpoint");
    assert.equal(panel.checkpoint("s1", { index: -2 }), false);
    assert.deepEqual(p.posted, [{ type: "checkpoint", index: 4 }]);

    p.messageEmitter.fire({ type: "gotoCheckpoint", index: 3 });
    p.messageEmitter.fire({ type: "command", command: "workbench.action.terminal.new" });
    p.messageEmitter.fire({ type: "gotoCheckpoint", index: 3, then: "run" });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(session.requests.slice(2), [{ command: "heddle/gotoCheckpoint", args: { index: 3 } }]);
  });

  test("opening at a bug shows its timeline; a non-loopback URL is refused", async () => {
    const { session, panel } = setup();
    await panel.open(session as never, "/w/.heddle/deadlock-1.trace.json");
    assert.match(mock.panels[0]!.webview.html, /#\/timeline\?path=%2Fw%2F\.heddle%2Fdeadlock-1\.trace\.json/);
    session.handler = () => ({ url: "http://192.168.1.5:80/" });
    await assert.rejects(panel.open(session as never), /not a loopback URL/);
  });

  test("a new session's checkpoint moves the panel when the session it followed has ended", async () => {
    const { session, panel } = setup();
    await panel.open(session as never);
    const next = new FakeSession("s2", "TestTransfer", undefined, (cmd) => (cmd === "heddle/webview" ? { url: "http://127.0.0.1:6000/?token=new" } : {}));
    fire.start(next);
    assert.equal(await panel.follow(next as never), false, "the followed session is still live");
    assert.equal(panel.followedSession, "s1");
    fire.terminate(session);
    assert.equal(await panel.follow(next as never), true);
    assert.equal(panel.followedSession, "s2");
    assert.equal(mock.panels.length, 1, "the same panel");
    assert.match(mock.panels[0]!.webview.html, /src="http:\/\/127\.0\.0\.1:6000\/\?token=new"/);
    assert.equal(panel.checkpoint("s2", { index: 1 }), true);
  });

  test("after the panel is closed, checkpoints go nowhere", async () => {
    const { session, panel } = setup();
    await panel.open(session as never);
    mock.panels[0]!.dispose();
    assert.equal(panel.isOpen, false);
    assert.equal(panel.checkpoint("s1", { index: 1 }), false);
  });
});
