package p

import "fmt"

// Nothing here needs rewriting: the file is left alone.
func nothing() { fmt.Println("hello") }
