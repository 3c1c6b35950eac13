// Package dap is heddle's debug adapter (heddle dap): it speaks the Debug Adapter Protocol
// with the editor and translates it to and from package debugger, the debugger core.
//
// Every request's arguments are decoded into a struct of their own (go-dap's for the
// standard requests, this package's for the heddle/* ones, docs/dap.md), and arguments that
// do not decode get an error response. Requests heddle does not interpret go to the current
// incarnation's Delve with their thread id translated, and Delve's events come back the same
// way.
//
// Each incarnation's Delve is a DAP server in a process of its own (ServeDelve), which
// implements debugger.Target: this package is the only one that knows Delve's protocol.
package dap
