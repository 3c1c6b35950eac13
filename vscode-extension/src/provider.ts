// The "heddle" debug type: launch configurations and the adapter process.

import * as vscode from "vscode";
import { Editor, LaunchConfig, findEnclosingTest, resolve, testConfiguration } from "./config";
import { heddlePath, readSettings } from "./settings";

export function activeEditor(): Editor | undefined {
  const e = vscode.window.activeTextEditor;
  if (!e || e.document.uri.scheme !== "file") return undefined;
  return {
    file: e.document.uri.fsPath,
    languageId: e.document.languageId,
    text: e.document.getText(),
    line: e.selection.active.line,
  };
}

export const initialConfiguration: LaunchConfig = {
  type: "heddle",
  request: "launch",
  name: "Heddle: Debug test",
  mode: "test",
  program: "${fileDirname}",
  args: ["-test.run", "^TestName$"],
  stopOnBug: true,
};

export class HeddleConfigurationProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    const e = activeEditor();
    const test = e && e.file.endsWith("_test.go") ? findEnclosingTest(e.text, e.line) : undefined;
    if (e && test) {
      const c = testConfiguration(e.file, test);
      return [{ ...c, program: "${fileDirname}", stopOnBug: true }];
    }
    return [{ ...initialConfiguration }];
  }

  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const r = resolve(config, activeEditor(), readSettings(folder?.uri));
    if ("error" in r) {
      void vscode.window.showErrorMessage(r.error);
      return undefined;
    }
    return r.config as vscode.DebugConfiguration;
  }
}

export class HeddleAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.DebugAdapterDescriptor {
    const folder = session.workspaceFolder;
    const options: vscode.DebugAdapterExecutableOptions = {};
    if (folder && folder.uri.scheme === "file") options.cwd = folder.uri.fsPath;
    return new vscode.DebugAdapterExecutable(heddlePath(folder?.uri), ["dap"], options);
  }
}
