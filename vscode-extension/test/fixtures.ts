// Files for the tests.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";

// A module example.com/bank in a temporary directory, with saved traces of TestTransfer: a
// file whose name ends in .gz is written compressed, as heddle writes traces.
export function bankModule(traces: Record<string, string>): { root: string; results: string } {
  const root = mkdtempSync(path.join(tmpdir(), "heddle-saved-"));
  writeFileSync(path.join(root, "go.mod"), "module example.com/bank\n\ngo 1.23\n");
  const results = path.join(root, ".heddle", "example.com", "bank", "TestTransfer");
  mkdirSync(results, { recursive: true });
  for (const [name, text] of Object.entries(traces)) writeFileSync(path.join(results, name), name.endsWith(".gz") ? gzipSync(text) : text);
  return { root, results };
}
