// The language client of heddle lsp (code lenses and code actions on Go
// tests and //heddle:atomic functions that call heddle.explore,
// heddle.debugTest, heddle.replayBug and heddle.checkAtomicity).

import * as vscode from "vscode";
import { CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions } from "vscode-languageclient/node";
import { errorText, findExecutable, heddlePath, lspEnabled } from "./settings";

export async function startLanguageClient(output: vscode.OutputChannel): Promise<LanguageClient | undefined> {
  if (!lspEnabled()) return undefined;
  const command = heddlePath();
  // Without heddle there are no lenses; debugging reports the missing
  // executable when it is tried, so no notification here.
  if (!findExecutable(command)) {
    output.appendLine(`heddle lsp: ${command} not found (setting heddle.path); code lenses are off.`);
    return undefined;
  }
  const serverOptions: ServerOptions = { command, args: ["lsp"] };
  let restarts: number[] = [];
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "go" }],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationFailedHandler: (err) => {
      output.appendLine(`heddle lsp: initialization failed: ${errorText(err)}`);
      return false;
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        const now = Date.now();
        restarts = restarts.filter((t) => now - t < 180_000);
        restarts.push(now);
        if (restarts.length <= 3) return { action: CloseAction.Restart, handled: true };
        output.appendLine(`heddle lsp stopped ${restarts.length} times in 3 minutes and is not restarted: code lenses are off. Check the heddle.path setting (${command}).`);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  const client = new LanguageClient("heddle", "Heddle", serverOptions, clientOptions);
  try {
    await client.start();
    output.appendLine(`heddle lsp started (${command} lsp)`);
    return client;
  } catch (err) {
    output.appendLine(`heddle lsp did not start (${command} lsp): ${errorText(err)}`);
    return undefined;
  }
}
