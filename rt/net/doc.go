// Package net is the instrumented counterpart of the standard package net: heddle's virtual
// network.
//
// The instrumenter makes instrumented code import this package in place of net. It declares
// every exported name of net. Listen, Dial and DialTimeout are heddle's: in a run, a listener
// and its connections are objects of the run whose Accept, Dial, Read, Write and Close are
// scheduling points, the delivery of a write a receive on a channel of the run (so the order
// of deliveries is a decision), and deadlines times of the virtual clock. Everything else
// (addresses, IP, Dialer, Resolver, …) is the standard package's. Outside a run, Listen and
// Dial are the standard package's.
//
// A dial of an address that no listener of the process has is given to Outside; when it is
// nil, the run ends as unsupported. See docs/network.md.
package net
