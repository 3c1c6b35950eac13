// Package leaktest holds the tests of rt/goleak, heddle's counterpart of go.uber.org/goleak.
// They live outside rt because heddle leaves rt's own frames out of the stacks that goleak's
// options match, and the tests' goroutines must run functions of the program's.
package leaktest
