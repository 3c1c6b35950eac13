package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/suite"
)

// chdirFirst handles -C dir as go does, when it is the first argument: it changes to dir
// before anything else, so that packages, -out and every other path are relative to it. It
// returns the arguments that follow.
func chdirFirst(args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	a := strings.TrimPrefix(strings.TrimPrefix(args[0], "-"), "-")
	var dir string
	switch {
	case a == "C" && len(args) > 1:
		dir, args = args[1], args[2:]
	case strings.HasPrefix(a, "C="):
		dir, args = a[2:], args[1:]
	default:
		return args, nil
	}
	if err := os.Chdir(dir); err != nil {
		return nil, fmt.Errorf("chdir %s: %v", dir, err)
	}
	return args, nil
}

// buildFlags are the go command's build flags (go help build), each with whether it takes a
// value in the next argument.
var buildFlags = map[string]bool{
	"a": false, "n": false, "x": false, "msan": false, "asan": false, "cover": false, "work": false,
	"linkshared": false, "modcacherw": false, "trimpath": false, "buildvcs": false,
	"tags": true, "gcflags": true, "ldflags": true, "asmflags": true, "gccgoflags": true, "mod": true,
	"modfile": true, "overlay": true, "p": true, "pgo": true, "covermode": true, "coverpkg": true,
	"toolexec": true, "buildmode": true, "compiler": true, "installsuffix": true, "pkgdir": true,
}

// splitArgs separates heddle's flags from build flags and packages. A flag heddle does not
// know is a build flag; a build flag that takes a value in the next argument is recognised by
// name. A flag that is neither is returned as unknown, rather than handed to the go command,
// whose complaint would not name it.
func splitArgs(fs *flag.FlagSet, args []string) (own, build, pkgs []string, unknown string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pkgs = append(pkgs, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		hasValue := strings.Contains(name, "=")
		if hasValue {
			name = name[:strings.Index(name, "=")]
		}
		if name == "h" || name == "help" {
			// Heddle's own usage, not the go command's.
			own = append(own, a)
			continue
		}
		if f := fs.Lookup(name); f != nil {
			own = append(own, a)
			if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool && !hasValue && i+1 < len(args) {
				i++
				own = append(own, args[i])
			}
			continue
		}
		valued, ok := buildFlags[name]
		if !ok && unknown == "" {
			unknown = a
		}
		build = append(build, a)
		if valued && !hasValue && i+1 < len(args) {
			i++
			build = append(build, args[i])
		}
	}
	return own, build, pkgs, unknown
}

const testUsage = `usage: heddle test [build flags] [packages] [flags]

Builds the tests of the packages (as go test does) with heddle's instrumentation, explores the
goroutine interleavings of each test, and reports every concurrency bug found, with a schedule
that heddle replay reproduces. The go command's build flags (-tags, -gcflags, ...) are passed
to it.

go test's flags mean what they mean in go test where heddle can give them that meaning: -run,
-skip, -v, -json, -failfast, -timeout, -C, -count=1. -parallel, -shuffle and -cpu are
accepted and change nothing, as each says below; -o and other counts are refused.

Exit status: 0 no bug found (a test that heddle cannot explore is skipped, as t.Skip is), 1 a
bug found or a package that does not build, 2 a usage error.

Flags:
`

const runUsage = `usage: heddle run [build flags] [package] [flags]

Builds a main package with heddle's instrumentation and explores the goroutine interleavings of
its main function, as heddle test does for a test.

Flags:
`

func cmdTest(args []string, tests bool) int { return cmdTestDir("", args, tests) }

// cmdTestIn runs heddle test with dir as the working directory of the build.
func cmdTestIn(dir string, args []string) int { return cmdTestDir(dir, args, true) }

// cmdTestDir runs heddle test (tests) or heddle run with the go command's build in dir: it
// parses the command line as go test does, and leaves the rest to package suite.
func cmdTestDir(dir string, args []string, tests bool) int {
	fs, f := testFlagSet(tests)
	args, err := chdirFirst(args)
	if err != nil {
		// go test's status for a directory it cannot enter.
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Name(), err)
		return exitBug
	}
	own, build, pkgs, unknown := splitArgs(fs, args)
	if slices.ContainsFunc(own, func(a string) bool { n := strings.TrimLeft(a, "-"); return n == "h" || n == "help" }) {
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return exitOK
	}
	if unknown != "" {
		fmt.Fprintf(os.Stderr, "%s: flag provided but not defined: %s (neither heddle's nor a go build flag; %[1]s -h lists them)\n", fs.Name(), unknown)
		return exitUsage
	}
	if err := fs.Parse(own); err != nil {
		return exitUsage
	}
	if err := f.Check(fs.Name()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitUsage
	}
	pkgs = append(pkgs, fs.Args()...)
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	ctx, cancel := interruptible()
	defer cancel()
	return suite.Test(ctx, dir, pkgs, build, tests, f)
}

// testFlagSet is the flag set of heddle test, or with tests false of heddle run, with its
// usage.
func testFlagSet(tests bool) (*flag.FlagSet, *suite.Flags) {
	name, usage := "test", testUsage
	if !tests {
		name, usage = "run", runUsage
	}
	fs := flag.NewFlagSet("heddle "+name, flag.ContinueOnError)
	f := new(suite.Flags)
	f.Register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs, f
}
