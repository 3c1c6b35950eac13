import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { findEnclosingTest } from "../src/config";
import { isTestName } from "../src/gotest";
import { parseTestRef } from "../src/lens";

// The cases heddle's Go side is tested with too (internal/gotest).
interface NameCase {
  name: string;
  test: boolean;
  why?: string;
}

const cases: NameCase[] = JSON.parse(
  readFileSync(join(__dirname, "..", "..", "..", "internal", "gotest", "testdata", "names.json"), "utf8"),
);

describe("go test's rule for a test's name", () => {
  test("the shared cases are there", () => {
    assert.ok(cases.length > 0);
  });
  for (const c of cases) {
    test(`${c.name}: ${c.test ? "a test" : "not a test"}${c.why ? ` (${c.why})` : ""}`, () => {
      assert.equal(isTestName(c.name), c.test);
      // Every place that recognises a test applies the same rule: the code
      // lens's arguments and the test under the cursor.
      if (c.test) {
        assert.deepEqual(parseTestRef([{ package: "p", test: c.name }]), { package: "p", test: c.name });
      } else {
        assert.throws(() => parseTestRef([{ package: "p", test: c.name }]));
      }
      const file = `package p\n\nfunc ${c.name}(t *testing.T) {\n\tx()\n}\n`;
      assert.equal(findEnclosingTest(file, 3), c.test ? c.name : undefined);
    });
  }
  test("not an identifier, not a test", () => {
    for (const bad of ["Test X", "TestX; rm -rf /", "Test-x", "", 7, undefined]) {
      assert.equal(isTestName(bad), false, String(bad));
    }
  });
});
