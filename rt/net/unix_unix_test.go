//go:build unix

package net_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

// These tests need a Unix kernel's sockets: descriptor passing, socketpair, unixgram.

// TestUnixRights: passing a descriptor over a virtual Unix connection cannot be done, and the
// run says so rather than failing the program's write.
func TestUnixRights(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	res := rt.Run(rt.Config{}, func() {
		l, _ := rtnet.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		rt.Go(func() {
			c, _ := l.AcceptUnix()
			c.ReadMsgUnix(make([]byte, 1), make([]byte, 64))
		})
		c, _ := rtnet.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
		c.WriteMsgUnix([]byte("x"), syscall.UnixRights(0), nil)
	})
	if res.Verdict.Kind != rt.VerdictUnsupported || !strings.Contains(res.Verdict.Message, "out-of-band") {
		t.Errorf("verdict %s: %q, want unsupported, out-of-band data", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestFileConn: a socketpair's end made with FileConn is rt/net's UnixConn, as instrumented
// code's assertion c.(*net.UnixConn) expects.
func TestFileConn(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := rtnet.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, ok := c.(*rtnet.UnixConn); !ok {
			t.Errorf("FileConn of a socketpair's end returned a %T", c)
		}
	}
}

// TestUnixgramWaitsOutside: a unixgram socket is a real one that rt/net wraps; a goroutine of a
// run that waits on it waits in the network poller, outside heddle, and the run is given up
// after a second, saying what the program called and where, not blamed on heddle's wrapper.
// It runs in a child process, which the wait poisons.
func TestUnixgramWaitsOutside(t *testing.T) {
	if os.Getenv("HEDDLE_RT_CHILD") == "unixgram" {
		c, err := rtnet.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "g.sock"), Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		res := rt.Run(rt.Config{}, func() {
			// A deadline of the virtual clock, an hour on: the kernel waits meanwhile.
			c.SetReadDeadline(rt.Now().Add(time.Hour))
			c.Read(make([]byte, 1)) // nothing ever comes
		})
		fmt.Printf("unixgram: %s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestUnixgramWaitsOutside$")
	cmd.Env = append(os.Environ(), "HEDDLE_RT_CHILD=unixgram")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	re := regexp.MustCompile(`unixgram: unsupported: goroutine G1 has waited for over 1s in uninstrumented code \(net\.\(\*UnixConn\)\.Read, called at \S*unix_test\.go:\d+; IO wait\)`)
	if !re.Match(out) {
		t.Errorf("output does not match %s:\n%s", re, out)
	}
}
