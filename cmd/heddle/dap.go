package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/heddledbg/heddle/dap"
	"github.com/heddledbg/heddle/wire"
)

// cmdDAP serves the Debug Adapter Protocol on stdin and stdout, as editors start adapters,
// or on a loopback TCP address, one client at a time, like dlv dap.
func cmdDAP(args []string) int {
	fs := flag.NewFlagSet("heddle dap", flag.ContinueOnError)
	listen := fs.String("listen", "", "serve on this loopback `address` (127.0.0.1:PORT) instead of stdin/stdout")
	logFile := fs.String("log", "", "write every DAP message, and the adapter's errors, to this `file` (default $"+wire.EnvDAPLog+")")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	var opts dap.Options
	if *logFile == "" {
		*logFile = os.Getenv(wire.EnvDAPLog)
	}
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "heddle dap:", err)
			return exitUsage
		}
		defer f.Close()
		opts.Log = f
		// An editor discards the adapter's stderr: its errors, and a goroutine dump on
		// SIGQUIT, go to the log too.
		redirectStderr(f)
	}
	ctx, cancel := interruptible()
	defer cancel()
	if *listen == "" {
		if err := dap.Serve(ctx, dapStdio{}, opts); err != nil {
			fmt.Fprintln(os.Stderr, "heddle dap:", err)
			return exitUsage
		}
		return exitOK
	}
	return serveDAP(ctx, *listen, opts)
}

// serveDAP serves the Debug Adapter Protocol on a loopback TCP address, one client at a
// time, until ctx ends.
func serveDAP(ctx context.Context, listen string, opts dap.Options) int {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heddle dap: -listen %q: %v\n", listen, err)
		return exitUsage
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(os.Stderr, "heddle dap: -listen %q: heddle serves on loopback addresses only\n", listen)
		return exitUsage
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle dap:", err)
		return exitUsage
	}
	defer ln.Close()
	fmt.Printf("DAP server listening at: %s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return exitOK
			}
			fmt.Fprintln(os.Stderr, "heddle dap:", err)
			return exitUsage
		}
		err = dap.Serve(ctx, conn, opts)
		conn.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "heddle dap:", err)
		}
	}
}

// stdio is the adapter's connection when an editor starts it.
type dapStdio struct{}

func (dapStdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (dapStdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }

var _ io.ReadWriter = dapStdio{}
