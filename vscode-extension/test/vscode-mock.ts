// A small stand-in for the "vscode" module, enough for the extension's
// modules to run under node --test. build.mjs --tests resolves "vscode" to
// this file. Tests drive it through `mock` and inspect what was called.

/* eslint-disable @typescript-eslint/no-explicit-any */

type Listener<T> = (e: T) => any;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return { dispose: () => { this.listeners = this.listeners.filter((l) => l !== listener); } };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Disposable {
  constructor(private readonly f: () => void = () => {}) {}
  dispose(): void {
    this.f();
  }
}

export class Uri {
  private constructor(readonly scheme: string, readonly authority: string, readonly path: string, readonly query: string, readonly fragment: string) {}
  static parse(s: string): Uri {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ""), u.host, u.pathname, u.search.replace(/^\?/, ""), u.hash.replace(/^#/, ""));
  }
  static file(p: string): Uri {
    return new Uri("file", "", p, "", "");
  }
  get fsPath(): string {
    return this.path;
  }
  toString(_skipEncoding?: boolean): string {
    if (this.scheme === "file") return `file://${this.path}`;
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ""}${this.fragment ? `#${this.fragment}` : ""}`;
  }
}

export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export enum ProgressLocation { SourceControl = 1, Window = 10, Notification = 15 }
export enum StatusBarAlignment { Left = 1, Right = 2 }
export enum ViewColumn { Active = -1, Beside = -2, One = 1 }
export enum TaskScope { Global = 1, Workspace = 2 }
export enum TaskRevealKind { Always = 1, Silent = 2, Never = 3 }
export enum TaskPanelKind { Shared = 1, Dedicated = 2, New = 3 }

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string, readonly color?: ThemeColor) {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(readonly label: string, readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None) {}
}

export class Position {
  constructor(readonly line: number, readonly character: number) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(sl: number, sc: number, el: number, ec: number) {
    this.start = new Position(sl, sc);
    this.end = new Position(el, ec);
  }
}

export class DebugAdapterExecutable {
  constructor(readonly command: string, readonly args: string[] = [], readonly options: Record<string, unknown> = {}) {}
}

export class ProcessExecution {
  constructor(readonly process: string, readonly args: string[], readonly options: Record<string, unknown> = {}) {}
}

export class Task {
  presentationOptions: Record<string, unknown> = {};
  constructor(readonly definition: Record<string, unknown>, readonly scope: unknown, readonly name: string, readonly source: string, readonly execution: ProcessExecution, readonly problemMatchers: string[] = []) {}
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  isCancellationRequested = false;
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    this.isCancellationRequested = true;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
}

// A debug session whose custom requests are answered by `handler`.
export class FakeSession {
  readonly type = "heddle";
  readonly requests: Array<{ command: string; args: unknown }> = [];
  workspaceFolder: { uri: Uri; name: string; index: number } | undefined;
  constructor(
    readonly id: string,
    readonly name: string = `session ${id}`,
    readonly configuration: Record<string, unknown> = { type: "heddle", request: "launch", name: "Heddle" },
    public handler: (command: string, args: unknown) => unknown = () => ({}),
  ) {}
  async customRequest(command: string, args?: unknown): Promise<any> {
    this.requests.push({ command, args });
    return this.handler(command, args);
  }
}

export class FakeWebviewPanel {
  title: string;
  disposed = false;
  revealed = 0;
  readonly onDidDisposeEmitter = new EventEmitter<void>();
  readonly onDidDispose = this.onDidDisposeEmitter.event;
  readonly messageEmitter = new EventEmitter<unknown>();
  readonly posted: unknown[] = [];
  readonly webview = {
    html: "",
    cspSource: "vscode-webview://mock",
    onDidReceiveMessage: this.messageEmitter.event,
    postMessage: async (m: unknown) => {
      this.posted.push(m);
      return true;
    },
  };
  constructor(readonly viewType: string, title: string, readonly column: unknown, readonly options: Record<string, unknown>) {
    this.title = title;
  }
  reveal(): void {
    this.revealed++;
  }
  dispose(): void {
    this.disposed = true;
    this.onDidDisposeEmitter.fire();
  }
}

export interface FakeStatusBarItem {
  id: string;
  text: string;
  tooltip: string | undefined;
  name: string | undefined;
  command: string | undefined;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface Message {
  level: "error" | "warning" | "info";
  text: string;
  items: string[];
}

export interface ProgressRun {
  options: { title?: string; cancellable?: boolean; location: ProgressLocation };
  reports: Array<{ message?: string; increment?: number }>;
  cancel: CancellationTokenSource;
  done: boolean;
}

// mock is what the tests set and read.
export const mock = {
  settings: {} as Record<string, unknown>,
  messages: [] as Message[],
  messageAnswer: undefined as string | undefined,
  quickPick: (async () => undefined) as (items: any[], options: unknown) => Promise<any>,
  quickPicks: [] as Array<{ items: any[]; options: unknown }>,
  progress: [] as ProgressRun[],
  statusBarItems: [] as FakeStatusBarItem[],
  panels: [] as FakeWebviewPanel[],
  externalUri: (u: Uri) => u,
  clipboard: "",
  started: [] as Array<{ folder: unknown; config: Record<string, unknown> }>,
  tasks: [] as Task[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  shown: [] as Array<{ uri: Uri; options: unknown }>,
  reset(): void {
    this.settings = {};
    this.messages = [];
    this.messageAnswer = undefined;
    this.quickPick = async () => undefined;
    this.quickPicks = [];
    this.progress = [];
    this.statusBarItems = [];
    this.panels = [];
    this.externalUri = (u: Uri) => u;
    this.clipboard = "";
    this.started = [];
    this.tasks = [];
    this.commands.clear();
    this.shown = [];
    window.activeTextEditor = undefined;
    debug.activeDebugSession = undefined;
    workspace.workspaceFolders = undefined;
  },
};

function message(level: Message["level"]) {
  return async (text: string, ...items: string[]) => {
    mock.messages.push({ level, text, items });
    return mock.messageAnswer;
  };
}

// editor makes an active text editor on a file with the cursor on a line.
export function editor(file: string, text: string, line: number, languageId = "go") {
  return {
    document: {
      uri: Uri.file(file),
      fileName: file,
      languageId,
      getText: () => text,
    },
    selection: { active: new Position(line, 0) },
  };
}

export const window = {
  activeTextEditor: undefined as ReturnType<typeof editor> | undefined,
  showErrorMessage: message("error"),
  showWarningMessage: message("warning"),
  showInformationMessage: message("info"),
  setStatusBarMessage: (text: string) => {
    mock.messages.push({ level: "info", text, items: [] });
    return new Disposable();
  },
  async showQuickPick(items: any[], options: unknown) {
    mock.quickPicks.push({ items, options });
    return mock.quickPick(items, options);
  },
  async withProgress<R>(options: ProgressRun["options"], task: (p: { report(v: { message?: string }): void }, token: CancellationTokenSource["token"]) => Promise<R>): Promise<R> {
    const run: ProgressRun = { options, reports: [], cancel: new CancellationTokenSource(), done: false };
    mock.progress.push(run);
    try {
      return await task({ report: (v) => run.reports.push(v) }, run.cancel.token);
    } finally {
      run.done = true;
    }
  },
  createStatusBarItem(id: string): FakeStatusBarItem {
    const item: FakeStatusBarItem = {
      id,
      text: "",
      tooltip: undefined,
      name: undefined,
      command: undefined,
      visible: false,
      show() { item.visible = true; },
      hide() { item.visible = false; },
      dispose() { item.visible = false; },
    };
    mock.statusBarItems.push(item);
    return item;
  },
  createWebviewPanel(viewType: string, title: string, column: unknown, options: Record<string, unknown>) {
    const p = new FakeWebviewPanel(viewType, title, column, options);
    mock.panels.push(p);
    return p;
  },
  async showTextDocument(uri: Uri, options: unknown) {
    mock.shown.push({ uri, options });
    return {};
  },
  createOutputChannel: () => ({ appendLine: () => {}, append: () => {}, dispose: () => {} }),
  createTreeView: () => new Disposable(),
};

export const workspace = {
  workspaceFolders: undefined as Array<{ uri: Uri; name: string; index: number }> | undefined,
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, dflt?: T): T | undefined {
        const k = section ? `${section}.${key}` : key;
        return (k in mock.settings ? mock.settings[k] : dflt) as T | undefined;
      },
    };
  },
  getWorkspaceFolder(uri: Uri) {
    return workspace.workspaceFolders?.find((f) => uri.fsPath.startsWith(f.uri.fsPath + "/"));
  },
};

const startSession = new EventEmitter<FakeSession>();
const terminateSession = new EventEmitter<FakeSession>();
const customEvent = new EventEmitter<{ session: FakeSession; event: string; body: unknown }>();

export const debug = {
  activeDebugSession: undefined as FakeSession | undefined,
  onDidStartDebugSession: startSession.event,
  onDidTerminateDebugSession: terminateSession.event,
  onDidReceiveDebugSessionCustomEvent: customEvent.event,
  async startDebugging(folder: unknown, config: Record<string, unknown>) {
    mock.started.push({ folder, config });
    return true;
  },
  registerDebugConfigurationProvider: () => new Disposable(),
  registerDebugAdapterDescriptorFactory: () => new Disposable(),
};

// Drive the debug events.
export const sessions = {
  start(s: FakeSession): void {
    startSession.fire(s);
  },
  terminate(s: FakeSession): void {
    terminateSession.fire(s);
  },
  event(s: FakeSession, event: string, body: unknown): void {
    customEvent.fire({ session: s, event, body });
  },
};

export const commands = {
  registerCommand(name: string, f: (...args: unknown[]) => unknown) {
    mock.commands.set(name, f);
    return new Disposable(() => mock.commands.delete(name));
  },
  async executeCommand(name: string, ...args: unknown[]) {
    return mock.commands.get(name)?.(...args);
  },
};

export const env = {
  async asExternalUri(u: Uri) {
    return mock.externalUri(u);
  },
  clipboard: {
    async writeText(t: string) {
      mock.clipboard = t;
    },
    async readText() {
      return mock.clipboard;
    },
  },
};

export const tasks = {
  async executeTask(t: Task) {
    mock.tasks.push(t);
    return {};
  },
};
