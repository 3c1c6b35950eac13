// Package broken does not compile.
package broken

func Add(a, b int) int { return a + b + c }
