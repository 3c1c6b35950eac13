// Command tsgen writes the TypeScript types of heddle's JSON formats from the Go types that
// encode them, so that the web view's types cannot drift from what Go emits.
//
// Usage, from the repository root:
//
//	go run ./internal/tsgen
//
// or go generate ./web. It writes web/src/wire.gen.ts, the web view's types of the files and
// of the server's answers, and vscode-extension/src/wire.gen.ts, the VS Code extension's
// types of the debug adapter's event bodies. Each Go type becomes one exported
// interface named as in Go (types of package locktree get the prefix Lock, so that
// locktree.Node is LockNode), with the field names, optionality and types that
// encoding/json gives it:
//
//   - a field's name is its json tag's name, else the Go name; "-" drops it;
//   - omitempty makes a field optional (?) when encoding/json omits its empty value: booleans,
//     numbers, strings, pointers, slices, maps and interfaces; omitzero makes any field optional;
//   - a pointer, slice or map that is not omitted can be null, so its type is T | null,
//     unless the generator is told that Go never leaves that field nil (Generator.NonNull);
//   - []byte is a string (base64), an array is a tuple, a map is a Record, time.Duration a
//     number (nanoseconds), time.Time a string, and the option ",string" makes a string;
//   - an embedded struct's fields are flattened, an outer field hiding an inner one of the
//     same name, as encoding/json does;
//   - a type with a MarshalText method is a string; a type with a MarshalJSON method must be
//     described to the generator (Generator.Marshaled, set in main.go), or generation fails;
//     the test checks the description against what the method writes.
//
// Doc comments of types and fields are carried over from the Go sources.
//
// The test of this package fails when a committed file differs from what the Go types
// generate, and shows the difference.
package main
