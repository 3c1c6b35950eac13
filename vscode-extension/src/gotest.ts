// go test's rule for a test function's name, the one predicate of the
// extension: Test, or TestXxx where Xxx does not start with a lower-case
// letter. heddle's Go side applies the same rule (internal/gotest), and both
// are checked against internal/gotest/testdata/names.json.

const identifier = /^[\p{L}_][\p{L}\p{N}_]*$/u;
const lowerStart = /^\p{Ll}/u;

// isTestName reports whether name is a Go identifier that go test takes for a
// test by its name (its signature must be func(*testing.T) too).
export function isTestName(name: unknown): name is string {
  if (typeof name !== "string" || !identifier.test(name) || !name.startsWith("Test")) return false;
  return !lowerStart.test(name.slice("Test".length));
}
