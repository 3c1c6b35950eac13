package main

import (
	"fmt"
	"os"

	"github.com/heddledbg/heddle/server"
)

// cmdServe opens the web view on exploration, trace or schedule files and serves it until
// interrupted.
func cmdServe(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: heddle serve FILE...")
		return exitUsage
	}
	s, err := server.New(server.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	defer s.Close()
	for _, f := range args {
		if err := s.Load(f); err != nil {
			fmt.Fprintln(os.Stderr, "heddle:", err)
			return exitUsage
		}
	}
	fmt.Printf("heddle: web view at %s\n(press Ctrl-C to stop)\n", s.URL())
	ctx, cancel := interruptible()
	defer cancel()
	<-ctx.Done()
	return exitOK
}
