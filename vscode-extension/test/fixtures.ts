// Files for the tests.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

// A module example.com/bank in a temporary directory, with saved traces of TestTransfer.
export function bankModule(traces: Record<string, string>): { root: string; results: string } {
  const root = mkdtempSync(path.join(tmpdir(), "heddle-saved-"));
  writeFileSync(path.join(root, "go.mod"), "module example.com/bank\n\ngo 1.23\n");
  const results = path.join(root, ".heddle", "example.com", "bank", "TestTransfer");
  mkdirSync(results, { recursive: true });
  for (const [name, text] of Object.entries(traces)) writeFileSync(path.join(results, name), text);
  return { root, results };
}
