package record

import (
	"fmt"
	"strings"
)

// DrawHistory draws a history as text: one line per goroutine, in the order of their first
// calls, and a bar |label---| from each operation's call to its return, so that operations
// that overlapped in time overlap on the page. The columns follow the order of calls and
// returns; each is as wide as the labels that must fit need. An operation that never returned
// runs to the right edge, ending in '>'. Below the bars, each operation is listed with the
// steps of its call and its return, when the history has steps (CallStep >= 0).
func DrawHistory(ops []Operation) string {
	if len(ops) == 0 {
		return ""
	}
	label := func(op Operation) string {
		if op.Return == -1 {
			return op.Input
		}
		return op.Input + " -> " + op.Output
	}
	// byEnd lists, for each position, the operations that return there.
	last := 0
	for _, op := range ops {
		last = max(last, op.Call, op.Return)
	}
	byEnd := make([][]int, last+1)
	for i, op := range ops {
		if op.Return >= 0 {
			byEnd[op.Return] = append(byEnd[op.Return], i)
		}
	}
	// x[p] is the column of position p: after the previous one, and far enough from the call
	// of every operation returning at p for its label to fit between the bars.
	x := make([]int, last+2)
	for p := 0; p <= last; p++ {
		if p > 0 {
			x[p] = x[p-1] + 2
		}
		for _, i := range byEnd[p] {
			x[p] = max(x[p], x[ops[i].Call]+len(label(ops[i]))+1)
		}
	}
	right := x[last] + 1
	for _, op := range ops {
		if op.Return == -1 {
			right = max(right, x[op.Call]+len(label(op))+2)
		}
	}

	var order []string
	rows := map[string][]byte{}
	for _, op := range ops {
		if rows[op.G] == nil {
			order = append(order, op.G)
			rows[op.G] = []byte(strings.Repeat(" ", right+1))
		}
		row, from, to := rows[op.G], x[op.Call], right
		if op.Return >= 0 {
			to = x[op.Return]
		}
		for c := from + 1; c < to; c++ {
			row[c] = '-'
		}
		copy(row[from+1:], label(op))
		row[from] = '|'
		if op.Return >= 0 {
			row[to] = '|'
		} else {
			row[to] = '>'
		}
	}
	width := 0
	for _, g := range order {
		width = max(width, len(g))
	}
	var sb strings.Builder
	for _, g := range order {
		fmt.Fprintf(&sb, "%-*s  %s\n", width, g, strings.TrimRight(string(rows[g]), " "))
	}
	for _, op := range ops {
		switch {
		case op.Return == -1:
			fmt.Fprintf(&sb, "  %-*s  %s  (never returned)\n", width, op.G, label(op))
		case op.CallStep >= 0:
			fmt.Fprintf(&sb, "  %-*s  %s  (steps %d-%d)\n", width, op.G, label(op), op.CallStep, op.ReturnStep)
		}
	}
	return sb.String()
}
