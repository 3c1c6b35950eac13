import type {
  BugSummary, Exploration, ExplorationSummary, Session, SourceSnippet, StreamMessage, Trace, TraceSummary,
} from "./types";

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

// Api talks to the server that served the page. The token comes from the
// page URL and goes in a header rather than the URL, so that it stays out of
// logs of API requests.
export class Api {
  constructor(private readonly token: string) {}

  private async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${this.token}`);
    const res = await fetch(path, { ...init, headers, cache: "no-store" });
    const text = await res.text();
    if (!res.ok) {
      let message = `${res.status} ${res.statusText}`;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? message;
      } catch {
        // The body was not the server's JSON error; keep the status line.
      }
      throw new ApiError(res.status, message);
    }
    return JSON.parse(text) as T;
  }

  session(): Promise<Session> {
    return this.request("api/session");
  }

  explorations(): Promise<ExplorationSummary[]> {
    return this.request("api/explorations");
  }

  exploration(id: string): Promise<Exploration> {
    return this.request(`api/exploration/${encodeURIComponent(id)}`);
  }

  bugs(id: string): Promise<BugSummary[]> {
    return this.request(`api/exploration/${encodeURIComponent(id)}/bugs`);
  }

  traces(): Promise<TraceSummary[]> {
    return this.request("api/traces");
  }

  trace(ref: TraceRef): Promise<Trace> {
    const q = "path" in ref
      ? `path=${encodeURIComponent(ref.path)}`
      : `exploration=${encodeURIComponent(ref.exploration)}&bug=${ref.bug}`;
    return this.request(`api/trace?${q}`);
  }

  source(file: string, line: number): Promise<SourceSnippet> {
    return this.request(`api/source?file=${encodeURIComponent(file)}&line=${line}`);
  }

  goto(step: number): Promise<unknown> {
    return this.request("api/goto", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ step }),
    });
  }

  // stream connects to the message stream and reconnects when it drops;
  // the server replays its state on every connection, and consumers ignore
  // what they already have.
  stream(onMessage: (m: StreamMessage) => void, onState: (connected: boolean) => void): void {
    let delay = 500;
    const connect = (): void => {
      // Relative to the page, so that the view also works behind a path prefix (an editor's
      // port proxy).
      const url = new URL(`ws?token=${encodeURIComponent(this.token)}`, location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      const ws = new WebSocket(url.toString());
      ws.onopen = () => {
        delay = 500;
        onState(true);
      };
      ws.onmessage = (ev) => {
        try {
          onMessage(JSON.parse(String(ev.data)) as StreamMessage);
        } catch (err) {
          console.error("heddle: bad stream message", err);
        }
      };
      ws.onclose = () => {
        onState(false);
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 10000);
      };
    };
    connect();
  }
}

// A TraceRef names a trace the server holds: by the name it was loaded
// under, or as the trace of a bug of an exploration.
export type TraceRef = { path: string } | { exploration: string; bug: number };

export function traceRefKey(ref: TraceRef): string {
  return "path" in ref ? `path:${ref.path}` : `bug:${ref.exploration}:${ref.bug}`;
}
