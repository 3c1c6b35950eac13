// Command oldgo is a module of go 1.16, before module graph pruning: its go.mod does not list
// example.com/b, which example.com/a requires and imports.
package main

import (
	"fmt"

	"example.com/a"
)

func main() { fmt.Println(a.Hello()) }
