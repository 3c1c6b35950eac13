// Package dap is heddle's debug adapter (heddle dap): it speaks the Debug Adapter Protocol
// with the editor and translates it to and from package debugger, the debugger core.
//
// Every request's arguments are decoded into a struct of their own (go-dap's for the
// standard requests, this package's for the heddle/* ones, docs/dap.md), and arguments that
// do not decode get an error response. Requests heddle does not interpret go to the current
// incarnation's Delve with their thread id translated, and Delve's events come back the same
// way. What the adapter sends is go-dap's types for the standard bodies, and this package's
// (bodies.go) for heddle's own, which it translates from package debugger's results; the VS
// Code extension's TypeScript types are generated from the latter (internal/tsgen).
//
// Values of heddle's runtime stand-ins (rt.Mutex for the user's sync.Mutex…) are shown in the
// user's types, with a summary of their state read from the stand-in's fields as Delve gives
// them (values.go).
//
// Each incarnation's Delve is a DAP server in a process of its own (ServeDelve), which
// implements debugger.Target: this package is the only one that knows Delve's protocol.
package dap
