// Package driver drives worker processes: it starts an instrumented binary for each request
// of the worker protocol (package wire), streams the answer, and keeps the process from
// outliving heddle or its budget. On top of that it explores a test inside one worker
// (Explore), or several (Parallel), replays a schedule (Replay), lists a binary's tests (List),
// and runs a controller-side exploration whose every run is a process of its own (Isolated).
//
// It is the controller's side: nothing linked into a program under test imports it.
package driver
