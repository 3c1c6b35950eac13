// The Heddle extension: the "heddle" debug type, Explore from Here, the
// Heddle view, the web view panel, Choose Next Goroutine and the client of
// heddle lsp.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { registerCommands } from "./commands";
import { ExploreController } from "./explore";
import { startLanguageClient } from "./lsp";
import { ExplorationsModel } from "./model";
import { WebViewPanel } from "./panel";
import { events } from "./protocol";
import { HeddleAdapterFactory, HeddleConfigurationProvider } from "./provider";
import { Sessions } from "./sessions";
import { errorText, readSettings } from "./settings";
import { HeddleTree } from "./tree";

let client: LanguageClient | undefined;

export interface HeddleApi {
  model: ExplorationsModel;
}

export function activate(ctx: vscode.ExtensionContext): HeddleApi {
  const output = vscode.window.createOutputChannel("Heddle");
  const model = new ExplorationsModel();
  const sessions = new Sessions();
  const explore = new ExploreController(model, sessions, () => readSettings());
  const panel = new WebViewPanel(sessions);
  const tree = new HeddleTree(model);
  ctx.subscriptions.push(
    output,
    sessions,
    explore,
    panel,
    tree,
    vscode.window.createTreeView("heddle.explorations", { treeDataProvider: tree, showCollapseAll: true }),
    vscode.debug.registerDebugConfigurationProvider("heddle", new HeddleConfigurationProvider()),
    vscode.debug.registerDebugAdapterDescriptorFactory("heddle", new HeddleAdapterFactory()),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type !== "heddle") return;
      if (e.event !== events.checkpoint) {
        explore.handleEvent(e);
      } else if (!panel.checkpoint(e.session.id, e.body)) {
        panel.follow(e.session).then(undefined, (err: unknown) => {
          void vscode.window.showErrorMessage(`Heddle: cannot show the web view of ${e.session.name}: ${errorText(err)}`);
        });
      }
    }),
    ...registerCommands({ model, sessions, explore, panel }),
  );
  void startLanguageClient(output).then((c) => {
    client = c;
  });
  return { model };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
