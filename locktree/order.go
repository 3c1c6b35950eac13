package locktree

import (
	"cmp"
	"slices"
	"strings"
)

// compareIDs orders goroutine and object ids naturally: runs of decimal digits compare as
// numbers, so "G1.2" < "G1.10" and "G1#3" < "G1#10". Ids that are equal as numbers but differ in
// leading zeros fall back to byte order, which keeps the order total.
func compareIDs(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na := strings.TrimLeft(a[i:ei], "0")
			nb := strings.TrimLeft(b[j:ej], "0")
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(int(a[i]), int(b[j]))
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// sortIDs sorts ids in natural order.
func sortIDs(ids []string) {
	slices.SortFunc(ids, compareIDs)
}

// orderedPair returns a and b in natural order.
func orderedPair(a, b string) [2]string {
	if compareIDs(a, b) > 0 {
		a, b = b, a
	}
	return [2]string{a, b}
}
