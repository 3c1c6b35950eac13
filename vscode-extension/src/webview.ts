// The HTML around the heddle web view, its Content-Security-Policy and the
// checks on the messages that cross it. Nothing here depends on VS Code.
//
// The panel is a wrapper page that embeds the web view served by the debug
// adapter (a loopback URL with a token) in an iframe. Two kinds of message
// cross the wrapper, and only these two:
//   extension -> iframe: {type: "checkpoint", index}        the debugger stopped
//   iframe -> extension: {type: "gotoCheckpoint", index}    the user picked a step
// Anything else is dropped, so a web page cannot make VS Code do anything
// but move the debugger to a checkpoint.

import { randomBytes } from "node:crypto";
import { isCheckpointIndex, isObject } from "./protocol";

export interface GotoCheckpointMessage {
  type: "gotoCheckpoint";
  index: number;
}

export interface CheckpointMessage {
  type: "checkpoint";
  index: number;
}

function exactly(v: Record<string, unknown>, keys: string[]): boolean {
  const have = Object.keys(v);
  return have.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(v, k));
}

// parseFrameMessage accepts exactly {type: "gotoCheckpoint", index} with a
// non-negative integer index and nothing else.
export function parseFrameMessage(m: unknown): GotoCheckpointMessage | undefined {
  if (!isObject(m)) return undefined;
  const proto: unknown = Object.getPrototypeOf(m);
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (!exactly(m, ["type", "index"])) return undefined;
  if (m.type !== "gotoCheckpoint" || !isCheckpointIndex(m.index)) return undefined;
  return { type: "gotoCheckpoint", index: m.index };
}

export function checkpointMessage(index: number): CheckpointMessage {
  if (!isCheckpointIndex(index)) throw new Error(`bad checkpoint index ${String(index)}`);
  return { type: "checkpoint", index };
}

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

// checkWebViewUrl accepts the URL the adapter answers heddle/webview with:
// http(s) on a loopback address.
export function checkWebViewUrl(url: unknown): URL {
  if (typeof url !== "string") throw new Error("heddle/webview: the response has no url");
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`heddle/webview: not a URL: ${url}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`heddle/webview: not an http URL: ${url}`);
  if (!loopbackHosts.has(u.hostname)) throw new Error(`heddle/webview: not a loopback URL: ${url}`);
  return u;
}

// frameOrigin is the origin CSP's frame-src allows: scheme, host and port
// of the (external) URL of the web view, nothing else.
export function frameOrigin(url: string): string {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`the web view URL is not http: ${url}`);
  return u.origin;
}

// externalFrameUrl is the URL the iframe loads: the external form of the
// web view's URL (asExternalUri maps a loopback URL to one the browser
// reaches, e.g. a port-forwarding proxy) with the original query kept,
// since the query carries the session token and some forwarders drop it.
export function externalFrameUrl(external: string, original: URL): string {
  const u = new URL(external);
  for (const [k, v] of original.searchParams) if (!u.searchParams.has(k)) u.searchParams.append(k, v);
  if (!u.hash && original.hash) u.hash = original.hash;
  return u.href;
}

// timelineUrl points the web view at the timeline of a saved trace.
export function timelineUrl(url: string, trace: string | undefined): string {
  const u = new URL(url);
  u.hash = trace ? `/timeline?path=${encodeURIComponent(trace)}` : "/timeline";
  return u.href;
}

export function makeNonce(): string {
  return randomBytes(18).toString("base64");
}

export function contentSecurityPolicy(origin: string, nonce: string): string {
  if (!/^https?:\/\/[^\s;,'"/]+$/.test(origin)) throw new Error(`not an origin: ${origin}`);
  if (!/^[A-Za-z0-9+/=_-]+$/.test(nonce)) throw new Error("bad nonce");
  return [
    "default-src 'none'",
    `frame-src ${origin}`,
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// jsString is a JavaScript string literal safe inside a <script> element.
function jsString(s: string): string {
  return JSON.stringify(s).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

// wrapperScript runs in the webview. Messages from the iframe must come
// from its window and its origin and be {type: "gotoCheckpoint", index};
// messages from the extension (the webview's parent) must be
// {type: "checkpoint", index}. Both are rebuilt, not passed on.
export function wrapperScript(origin: string): string {
  return `(function () {
  "use strict";
  var vscode = acquireVsCodeApi();
  var origin = ${jsString(origin)};
  var frame = document.getElementById("heddle-frame");
  function index(d, type) {
    if (typeof d !== "object" || d === null || Array.isArray(d)) return -1;
    var keys = Object.keys(d);
    if (keys.length !== 2 || d.type !== type) return -1;
    var i = d.index;
    return typeof i === "number" && Number.isSafeInteger(i) && i >= 0 ? i : -1;
  }
  window.addEventListener("message", function (e) {
    if (!frame || !frame.contentWindow) return;
    if (e.source === frame.contentWindow) {
      if (e.origin !== origin) return;
      var g = index(e.data, "gotoCheckpoint");
      if (g >= 0) vscode.postMessage({ type: "gotoCheckpoint", index: g });
      return;
    }
    if (e.source !== window.parent) return;
    var c = index(e.data, "checkpoint");
    if (c >= 0) frame.contentWindow.postMessage({ type: "checkpoint", index: c }, origin);
  });
})();`;
}

export interface WebViewHtml {
  frameUrl: string; // the external URL of the web view
  nonce: string;
  title?: string;
}

export function webviewHtml(o: WebViewHtml): string {
  const origin = frameOrigin(o.frameUrl);
  const csp = contentSecurityPolicy(origin, o.nonce);
  const title = escapeHtml(o.title ?? "Heddle");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style nonce="${o.nonce}">
html, body { margin: 0; padding: 0; width: 100%; height: 100%; overflow: hidden; background: var(--vscode-editor-background); }
iframe { border: 0; width: 100%; height: 100%; display: block; }
</style>
</head>
<body>
<iframe id="heddle-frame" title="${title}" src="${escapeHtml(o.frameUrl)}" sandbox="allow-scripts allow-same-origin" referrerpolicy="no-referrer"></iframe>
<script nonce="${o.nonce}">
${wrapperScript(origin)}
</script>
</body>
</html>`;
}
