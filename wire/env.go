package wire

import "strings"

// The environment variables through which heddle configures the processes it starts, and
// through which heddle's own debugging output is switched on.
const (
	// EnvWorker, set to 1, makes an instrumented binary serve the worker protocol instead of
	// running its tests or main.
	EnvWorker = "HEDDLE_WORKER"
	// EnvDebug is the path of the debug adapter's Unix socket: a worker with it set serves the
	// debug protocol there.
	EnvDebug = "HEDDLE_DEBUG"
	// EnvPackage and EnvBinary are the import path of the package under test and the digest of
	// its binary, which a worker writes into the traces it makes (record.Program).
	EnvPackage = "HEDDLE_PACKAGE"
	EnvBinary  = "HEDDLE_BINARY"
	// EnvReexec names the test that a copy of a worker's test binary, started by the test
	// itself, runs as go test would, out of heddle's control.
	EnvReexec = "HEDDLE_REEXEC"
	// EnvChildren names the file in which such a copy notes that it ran.
	EnvChildren = "HEDDLE_CHILDREN"
	// EnvDelveSocket makes the heddle binary a Delve DAP server on this Unix socket, for one
	// of the debug adapter's incarnations.
	EnvDelveSocket = "HEDDLE_DELVE_SOCKET"
	// EnvDAPLog is the file to which heddle dap logs every DAP message (its -log flag).
	EnvDAPLog = "HEDDLE_DAP_LOG"
	// EnvDAPTrace, when set, makes the debug adapter trace the time its steps take.
	EnvDAPTrace = "HEDDLE_DAP_TRACE"
	// EnvDebugRuns is a file to which the explorer logs every run's events and decisions.
	EnvDebugRuns = "HEDDLE_DEBUG_RUNS"
	// EnvGroup, set to the member's name (P1, P2…), makes an instrumented program a member of
	// a process group: it serves the group protocol of package rt/member on fd 3 and 4.
	EnvGroup = "HEDDLE_GROUP"
	// EnvGroupTest names the test that a test binary in a process group runs.
	EnvGroupTest = "HEDDLE_GROUP_TEST"
	// EnvVerbose is set to 1 when the user asked for -v. A worker's binary runs with
	// -test.v, to read each test's log as it is written (TestArgs), but the tests see
	// testing.Verbose() as go test would show it to them: true only with -v.
	EnvVerbose = "HEDDLE_VERBOSE"
	// EnvRun and EnvSkip are go test's -run and -skip: a worker runs only the subtests they
	// select (package testmatch), and writes them into its traces (record.Program), by which
	// a replay runs the same.
	EnvRun  = "HEDDLE_RUN"
	EnvSkip = "HEDDLE_SKIP"
	// EnvTmpdir is the TMPDIR that a debuggee takes as its own when it starts. The debug
	// adapter cannot give it TMPDIR itself: Delve sets the environment of a launch in its own
	// process, and then makes the FIFOs for the debuggee's output in its TMPDIR, which would
	// be the user's, where a Delve that is killed leaves them.
	EnvTmpdir = "HEDDLE_TMPDIR"
)

// TestFunc is the test that the instrumenter adds to every test package: it serves the
// protocols for the package's tests (worker.Serve).
const TestFunc = "TestHeddleWorker"

// TestArgs returns the command line on which an instrumented test binary runs TestFunc, and
// only it, once, without go test's time limit. Verbose makes the testing package print a
// test's log as it goes, which a worker needs to report a failed run's messages. The user's
// flags for the test binary follow, except those that select tests (-test.run, -test.skip),
// which heddle applies itself (package testmatch).
func TestArgs(verbose bool, user ...string) []string {
	args := []string{"-test.run=^" + TestFunc + "$", "-test.count=1", "-test.timeout=0"}
	if verbose {
		args = append(args, "-test.v=true")
	}
	for i := 0; i < len(user); i++ {
		a := strings.TrimLeft(user[i], "-")
		switch {
		case strings.HasPrefix(a, "test.run=") || strings.HasPrefix(a, "run="),
			strings.HasPrefix(a, "test.skip=") || strings.HasPrefix(a, "skip="):
		case a == "test.run" || a == "run" || a == "test.skip" || a == "skip":
			i++
		default:
			args = append(args, user[i])
		}
	}
	return args
}

// Selecting is the environment, as KEY=value, by which a worker or a debuggee runs the
// subtests that go test's -run and -skip select (EnvRun, EnvSkip).
func Selecting(run, skip string) []string {
	var env []string
	if run != "" {
		env = append(env, EnvRun+"="+run)
	}
	if skip != "" {
		env = append(env, EnvSkip+"="+skip)
	}
	return env
}
