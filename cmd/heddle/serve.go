package main

import (
	"fmt"
	"os"
)

func cmdServe(args []string) int {
	fmt.Fprintln(os.Stderr, "heddle serve: not available in this version")
	return exitUsage
}
