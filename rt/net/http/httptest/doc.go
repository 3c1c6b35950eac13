// Package httptest is the instrumented counterpart of the standard package net/http/httptest.
//
// The instrumenter makes instrumented code import this package in place of net/http/httptest.
// It declares every exported name of httptest. Server, NewServer, NewUnstartedServer and
// NewTLSServer are heddle's: the server listens on the virtual network (package rt/net) and
// serves its connections on goroutines heddle controls (rt/net/http). ResponseRecorder,
// NewRequest and the rest are the standard package's.
package httptest
