// Package server serves Heddle's web view: the single-page app embedded from
// package web, a JSON API over the explorations and traces it was given, and
// a WebSocket stream of a live exploration and debug session.
//
// The server listens on 127.0.0.1 only. Every request must carry the
// per-session token, either as an "Authorization: Bearer" header or as a
// "token" query parameter; the page URL returned by [Server.URL] carries it.
// Requests without it get 401. Requests whose Origin header names any other
// site than the server itself (or a VS Code webview) get 403, which keeps
// other pages in the user's browser from driving the API.
//
// Nothing a page sends can make the server run a command or read a file it
// was not given: traces are looked up by the names they were added under,
// and source snippets are served only for files that loaded traces mention.
//
// # API
//
//	GET  /api/session                  session name, program, live statistics
//	GET  /api/explorations             the explorations, without their trees
//	GET  /api/exploration/{id}         one exploration file, whole
//	GET  /api/exploration/{id}/bugs    its bugs, with goroutines and positions from their traces
//	GET  /api/traces                   the names of the loaded traces
//	GET  /api/trace?path=NAME          a trace by the name it was added under
//	GET  /api/trace?exploration=ID&bug=N
//	GET  /api/source?file=F&line=N     lines around F:N, for files in loaded traces
//	POST /api/goto                     {"step": N}: passed to the OnGoto callback
//	GET  /ws                           the message stream
//
// # Stream
//
// Each WebSocket message is one JSON object with a "type" field, as
// described in docs/formats.md. A node or bug message carries the node's or
// bug's fields beside "type":
//
//	{"type": "node", "id": 1, "parent": 0, "g": "G1.1", "op": "lock", ...}
//
// A start message begins the tree of a test's exploration:
//
//	{"type": "start", "program": {"package": "example.com/bank", "test": "TestTransfer"}}
//
// A new client first receives a hello message, then every start, node and bug
// published so far, the latest progress or done message, and the latest
// checkpoint.
package server
