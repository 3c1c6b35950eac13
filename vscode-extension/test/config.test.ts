import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, test } from "node:test";
import { defaultSettings, findEnclosingTest, resolve, strategies, testConfiguration } from "../src/config";
import { HeddleAdapterFactory, HeddleConfigurationProvider } from "../src/provider";
import { editor, mock, window } from "./vscode-mock";

const file = [
  "package bank", //                                   0
  "", //                                               1
  "import \"testing\"", //                             2
  "", //                                               3
  "func helper(t *testing.T) {", //                   4
  "\tt.Helper()", //                                   5
  "}", //                                              6
  "", //                                               7
  "// TestTransfer moves money both ways.", //         8
  "func TestTransfer(t *testing.T) {", //              9
  "\tgo func() {", //                                  10
  "\t\tdone <- true", //                               11
  "\t}()", //                                          12
  "}", //                                              13
  "", //                                               14
  "func TestB(tt *testing.T) { tt.Log() }", //         15
  "", //                                               16
  "func (s *suite) TestMethod(t *testing.T) {", //     17
  "}", //                                              18
  "func Testlower(t *testing.T) {", //                 19
  "}", //                                              20
  "func TestMain(m *testing.M) {", //                  21
  "\tm.Run()", //                                      22
  "}", //                                              23
  "func Test(t *testing.T) {", //                      24
  "\tt.Run(\"x\", func(t *testing.T) {", //           25
  "\t})", //                                           26
  "}", //                                              27
  "func TestAliased(t *tst.T) {", //                   28
  "\tx := 1", //                                       29
  "}", //                                              30
].join("\n");

describe("findEnclosingTest", () => {
  const cases: Array<[number, string | undefined]> = [
    [0, undefined], // package clause
    [5, undefined], // inside a helper
    [8, undefined], // doc comment above the test
    [9, "TestTransfer"], // the func line itself
    [11, "TestTransfer"], // nested closure
    [13, "TestTransfer"], // the closing brace
    [14, undefined], // after the test
    [15, "TestB"], // one-line test
    [16, undefined], // below a one-line test
    [18, undefined], // a method is not a test
    [20, undefined], // Testlower is not a test
    [22, undefined], // TestMain takes *testing.M
    [26, "Test"], // "Test" alone is a test
    [29, "TestAliased"], // testing imported under another name
    [99, undefined], // past the end
    [-1, undefined],
  ];
  for (const [line, want] of cases) {
    test(`line ${line} -> ${want ?? "none"}`, () => {
      assert.equal(findEnclosingTest(file, line), want);
    });
  }

  test("CRLF line endings", () => {
    assert.equal(findEnclosingTest(file.replace(/\n/g, "\r\n"), 11), "TestTransfer");
  });

  test("unicode test names", () => {
    assert.equal(findEnclosingTest("func TestÜber(t *testing.T) {\n\tx()\n}", 1), "TestÜber");
    assert.equal(findEnclosingTest("func Testüber(t *testing.T) {\n\tx()\n}", 1), undefined);
  });
});

describe("resolve", () => {
  const ed = { file: "/src/bank/bank_test.go", languageId: "go", text: file, line: 11 };

  test("an empty configuration debugs the test under the cursor with the settings' defaults", () => {
    const r = resolve({}, ed, { strategy: "pct", budget: "500" });
    assert.ok("config" in r, JSON.stringify(r));
    assert.deepEqual(r.config, {
      type: "heddle",
      request: "launch",
      name: "Heddle: TestTransfer",
      mode: "test",
      program: "/src/bank",
      args: ["-test.run", "^TestTransfer$"],
      strategy: "pct",
      budget: "500",
    });
  });

  test("an empty configuration outside a test is an error", () => {
    const r = resolve({}, { ...ed, line: 5 }, defaultSettings);
    assert.ok("error" in r);
    assert.match(r.error, /not inside a test function/);
    const r2 = resolve({}, { ...ed, file: "/src/bank/bank.go" }, defaultSettings);
    assert.ok("error" in r2);
    assert.match(r2.error, /Go test file/);
    assert.ok("error" in resolve({}, undefined, defaultSettings));
  });

  test("a launch.json configuration keeps its values and gets the missing defaults", () => {
    const r = resolve(
      { type: "heddle", request: "launch", name: "mine", program: "/p", strategy: "dfs", stopOnBug: false },
      undefined,
      { strategy: "pct", budget: "20s" },
    );
    assert.ok("config" in r);
    assert.equal(r.config.mode, "test");
    assert.equal(r.config.strategy, "dfs");
    assert.equal(r.config.budget, "20s");
    assert.equal(r.config.program, "/p");
    assert.equal(r.config.stopOnBug, false);
  });

  test("defaults when the settings are empty", () => {
    const r = resolve({ type: "heddle", request: "launch", name: "x", mode: "debug" }, undefined, { strategy: "", budget: "" });
    assert.ok("config" in r);
    assert.equal(r.config.strategy, "portfolio");
    assert.equal(r.config.budget, "total=10m,time=60s");
    assert.equal(r.config.program, "${fileDirname}");
  });

  test("replay needs a schedule; a schedule alone means replay", () => {
    const bad = resolve({ type: "heddle", request: "launch", name: "r", mode: "replay" }, undefined, defaultSettings);
    assert.ok("error" in bad);
    assert.match(bad.error, /schedule/);
    const ok = resolve({ type: "heddle", request: "launch", name: "r", schedule: "/t/deadlock-1.trace.json" }, undefined, defaultSettings);
    assert.ok("config" in ok);
    assert.equal(ok.config.mode, "replay");
    assert.equal(ok.config.schedule, "/t/deadlock-1.trace.json");
    assert.equal(ok.config.program, undefined);
  });

  test("bad modes, requests and args are errors", () => {
    assert.ok("error" in resolve({ type: "heddle", request: "launch", name: "x", mode: "remote" }, undefined, defaultSettings));
    assert.ok("error" in resolve({ type: "heddle", request: "attach", name: "x" }, undefined, defaultSettings));
    assert.ok("error" in resolve({ type: "heddle", request: "launch", name: "x", args: "-test.run" }, undefined, defaultSettings));
  });

  test("test names are anchored and escaped", () => {
    assert.deepEqual(testConfiguration("/a/b_test.go", "TestX").args, ["-test.run", "^TestX$"]);
    assert.equal(testConfiguration("/a/b_test.go", "TestX").program, "/a");
  });
});

describe("HeddleConfigurationProvider (with the vscode mock)", () => {
  beforeEach(() => mock.reset());

  test("F5 without launch.json uses the active editor and the heddle.* settings", () => {
    window.activeTextEditor = editor("/w/bank/bank_test.go", file, 12);
    mock.settings = { "heddle.strategy": "exitblock-rw", "heddle.budget": "100" };
    const c = new HeddleConfigurationProvider().resolveDebugConfiguration(undefined, { type: "", request: "", name: "" });
    assert.ok(c);
    assert.equal(c.mode, "test");
    assert.equal(c.program, "/w/bank");
    assert.deepEqual(c.args, ["-test.run", "^TestTransfer$"]);
    assert.equal(c.strategy, "exitblock-rw");
    assert.equal(c.budget, "100");
    assert.equal(mock.messages.length, 0);
  });

  test("no test under the cursor: an error message and no session", () => {
    window.activeTextEditor = editor("/w/bank/bank_test.go", file, 1);
    const c = new HeddleConfigurationProvider().resolveDebugConfiguration(undefined, { type: "", request: "", name: "" });
    assert.equal(c, undefined);
    assert.equal(mock.messages.length, 1);
    assert.equal(mock.messages[0]!.level, "error");
  });

  test("initial configurations name the test under the cursor", () => {
    window.activeTextEditor = editor("/w/bank/bank_test.go", file, 15);
    const [c] = new HeddleConfigurationProvider().provideDebugConfigurations();
    assert.equal(c!.name, "Heddle: TestB");
    assert.deepEqual(c!.args, ["-test.run", "^TestB$"]);
    window.activeTextEditor = undefined;
    const [d] = new HeddleConfigurationProvider().provideDebugConfigurations();
    assert.equal(d!.name, "Heddle: Debug test");
  });

  test("the adapter is heddle.path dap", () => {
    mock.settings = { "heddle.path": "/opt/heddle/bin/heddle" };
    const d = new HeddleAdapterFactory().createDebugAdapterDescriptor({ workspaceFolder: undefined } as never) as unknown as { command: string; args: string[] };
    assert.equal(d.command, "/opt/heddle/bin/heddle");
    assert.deepEqual(d.args, ["dap"]);
    mock.settings = {};
    const e = new HeddleAdapterFactory().createDebugAdapterDescriptor({ workspaceFolder: undefined } as never) as unknown as { command: string };
    assert.equal(e.command, "heddle");
  });
});

// fillSnippet turns a configuration snippet into what VS Code inserts:
// "^\"…\"" raw values lose their markers, \$ becomes $ and ${1:x} becomes x.
function fillSnippet(v: unknown): unknown {
  if (typeof v === "string") {
    const raw = v.startsWith("^\"") && v.endsWith("\"") ? v.slice(2, -1) : v;
    return raw.replace(/\$\{\d+:([^}]*)\}/g, "$1").replace(/\\\$/g, "$");
  }
  if (Array.isArray(v)) return v.map(fillSnippet);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillSnippet(x)]));
  return v;
}

describe("package.json", () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
  const c = pkg.contributes;

  test("the launch attributes are those of docs/dap.md", () => {
    const attrs = Object.keys(c.debuggers[0].configurationAttributes.launch.properties).sort();
    assert.deepEqual(attrs, ["args", "budget", "buildFlags", "cwd", "env", "mode", "program", "schedule", "stopOnBug", "stopOnEntry", "strategy"]);
    assert.deepEqual(c.debuggers[0].configurationAttributes.launch.properties.mode.enum, ["test", "debug", "replay"]);
  });

  test("the strategies of the setting and of the launch attribute are the same", () => {
    assert.deepEqual([...c.configuration.properties["heddle.strategy"].enum].sort(), [...strategies].sort());
    assert.deepEqual(c.debuggers[0].configurationAttributes.launch.properties.strategy.enum, c.configuration.properties["heddle.strategy"].enum);
    assert.equal(c.configuration.properties["heddle.strategy"].default, defaultSettings.strategy);
    assert.equal(c.configuration.properties["heddle.budget"].default, defaultSettings.budget);
  });

  test("budgets are what heddle dap accepts: heddle test's -budget", () => {
    const settingPattern = new RegExp(c.configuration.properties["heddle.budget"].pattern);
    const launchPattern = new RegExp(c.debuggers[0].configurationAttributes.launch.properties.budget.pattern);
    for (const re of [settingPattern, launchPattern]) {
      for (const ok of ["10s", "1000", "1m30s", "1.5s", "250ms", "runs=1000,time=30s", "total=10m,time=60s", "total=2m", "runs=5"]) assert.ok(re.test(ok), ok);
      for (const bad of ["ten", "10x", "", "-1", "runs=x", "total=", "time=10", "runs=5,", "speed=1s"]) assert.ok(!re.test(bad), bad);
    }
  });

  test("menus are contributed to menu ids VS Code has", () => {
    // The debug toolbar's id is debug/toolBar; debug/toolbar would be ignored.
    const known = new Set(["debug/toolBar", "view/title", "view/item/context", "commandPalette"]);
    for (const id of Object.keys(c.menus)) assert.ok(known.has(id), `unknown menu ${id}`);
  });

  test("every command in a menu or keybinding is declared", () => {
    const declared = new Set(c.commands.map((x: { command: string }) => x.command));
    const used: string[] = [];
    for (const items of Object.values(c.menus) as Array<Array<{ command: string }>>) used.push(...items.map((i) => i.command));
    used.push(...c.keybindings.map((k: { command: string }) => k.command));
    for (const u of used) assert.ok(declared.has(u), `${u} is not declared`);
  });

  test("breakpoints can be set in Go files, with or without the Go extension", () => {
    assert.deepEqual(c.breakpoints, [{ language: "go" }]);
  });

  test("Explore from Here is in the debug toolbar of stopped heddle sessions", () => {
    const item = c.menus["debug/toolBar"].find((m: { command: string }) => m.command === "heddle.exploreFromHere");
    assert.equal(item.when, "debugType == 'heddle' && debugState == 'stopped'");
    assert.equal(c.views.debug[0].id, "heddle.explorations");
  });

  test("snippets are valid launch configurations once filled in", () => {
    for (const s of c.debuggers[0].configurationSnippets) {
      const body = fillSnippet(s.body) as Record<string, unknown>;
      assert.doesNotMatch(JSON.stringify(body), /\$\{\d|\^"/);
      const r = resolve(body, undefined, defaultSettings);
      assert.ok("config" in r, `${s.label}: ${JSON.stringify(r)}`);
    }
  });
});
