// Package notests has no test files: go test, and heddle test, report "[no test files]".
package notests

// Zero is here for the package to have a declaration.
const Zero = 0
