import { accessSync, constants, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { Settings, defaultSettings } from "./config";

export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const c = vscode.workspace.getConfiguration("heddle", scope);
  return {
    strategy: c.get<string>("strategy") || defaultSettings.strategy,
    budget: c.get<string>("budget") || defaultSettings.budget,
  };
}

// heddlePath is the heddle executable from the heddle.path setting.
export function heddlePath(scope?: vscode.ConfigurationScope): string {
  const p = (vscode.workspace.getConfiguration("heddle", scope).get<string>("path") || "heddle").trim() || "heddle";
  if (p === "~" || p.startsWith("~/")) return os.homedir() + p.slice(1);
  return p;
}

export function lspEnabled(): boolean {
  return vscode.workspace.getConfiguration("heddle").get<boolean>("lsp.enabled") !== false;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// findExecutable resolves a command as the system would: a path is checked
// as it is, a bare name is looked up on PATH.
export function findExecutable(cmd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (cmd.includes("/") || cmd.includes("\\")) return runnable(cmd) ? cmd : undefined;
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const p = path.join(dir, cmd + ext);
      if (runnable(p)) return p;
    }
  }
  return undefined;
}
