package record_test

import (
	"path/filepath"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
)

func TestDrawHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []record.Operation
	}{
		{"empty", nil},
		// The lost push of the linstack kernel: push(2) runs inside push(1).
		{"nested", []record.Operation{
			{G: "G1.1", Call: 0, Return: 3, CallStep: 2, ReturnStep: 10, Input: "push(1)", Output: "ok"},
			{G: "G1.2", Call: 1, Return: 2, CallStep: 5, ReturnStep: 7, Input: "push(2)", Output: "ok"},
			{G: "G1", Call: 4, Return: 5, CallStep: 13, ReturnStep: 15, Input: "pop()", Output: "1"},
			{G: "G1", Call: 6, Return: 7, CallStep: 15, ReturnStep: 16, Input: "pop()", Output: "empty"},
		}},
		// A long label widens its columns; a short operation after it keeps its own width.
		{"staggered", []record.Operation{
			{G: "G1.1", Call: 0, Return: 2, CallStep: 1, ReturnStep: 4, Input: "put(\"key\", \"a long value\")", Output: "ok"},
			{G: "G1.2", Call: 1, Return: 3, CallStep: 2, ReturnStep: 6, Input: "get(\"key\")", Output: "\"\""},
		}},
		// An operation that never returned runs to the right edge; no steps outside heddle.
		{"pending", []record.Operation{
			{G: "goroutine 1", Call: 0, Return: 2, CallStep: -1, ReturnStep: -1, Input: "inc()", Output: "1"},
			{G: "goroutine 2", Call: 1, Return: -1, CallStep: -1, ReturnStep: -1, Input: "inc()"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", "history", tc.name+".golden"), record.DrawHistory(tc.ops))
		})
	}
}
