// Copyright 2015 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// The splitting and matching below follow Go's testing/match.go (splitRegexp, simpleMatch,
// alternationMatch, rewrite), so that heddle selects what go test selects.

package testmatch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Filter is a -run and a -skip pattern. The zero Filter matches every name.
type Filter struct {
	run, skip filterMatch
	Run, Skip string // the patterns as given
}

// New returns the filter of the patterns run and skip, either of which may be empty. The error
// names the flag and the element that does not compile.
func New(run, skip string) (*Filter, error) {
	f := &Filter{Run: run, Skip: skip}
	var err error
	if run != "" {
		if f.run, err = splitRegexp(run); err != nil {
			return nil, fmt.Errorf("-run: %v", err)
		}
	}
	if skip != "" {
		if f.skip, err = splitRegexp(skip); err != nil {
			return nil, fmt.Errorf("-skip: %v", err)
		}
	}
	return f, nil
}

// Match reports whether go test runs the test or subtest of full name name ("TestA/sub/#01"):
// -run matches each of its levels that the pattern has, and -skip does not match all of the
// pattern's levels.
func (f *Filter) Match(name string) bool {
	if f == nil {
		return true
	}
	elem := strings.Split(name, "/")
	if f.run != nil {
		if ok, _ := f.run.matches(elem); !ok {
			return false
		}
	}
	if f.skip != nil {
		if skip, partial := f.skip.matches(elem); skip && !partial {
			return false
		}
	}
	return true
}

type filterMatch interface {
	// matches reports whether the name's levels match the pattern's, and partial whether
	// the name has fewer levels than the pattern.
	matches(name []string) (ok, partial bool)
}

// simpleMatch is one regular expression per level of a name.
type simpleMatch []*regexp.Regexp

// alternationMatch matches when one of its alternatives does.
type alternationMatch []filterMatch

func (m simpleMatch) matches(name []string) (ok, partial bool) {
	for i, s := range name {
		if i >= len(m) {
			break
		}
		if !m[i].MatchString(s) {
			return false, false
		}
	}
	return true, len(name) < len(m)
}

func (m alternationMatch) matches(name []string) (ok, partial bool) {
	for _, m := range m {
		if ok, partial = m.matches(name); ok {
			return ok, partial
		}
	}
	return false, false
}

// splitRegexp splits s at its unbracketed slashes into levels, and at its top-level bars into
// alternatives, as testing's splitRegexp does, and compiles each level.
func splitRegexp(s string) (filterMatch, error) {
	var (
		a  []string
		b  [][]string
		cs int
		cp int
	)
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 { // an unmatched ']' is legal
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				a = append(a, s[:i])
				s = s[i+1:]
				i = 0
				continue
			}
		case '|':
			if cs == 0 && cp == 0 {
				a = append(a, s[:i])
				s = s[i+1:]
				i = 0
				b = append(b, a)
				a = nil
				continue
			}
		}
		i++
	}
	a = append(a, s)
	if len(b) == 0 {
		return compileLevels(a)
	}
	alts := make(alternationMatch, 0, len(b)+1)
	for _, x := range append(b, a) {
		m, err := compileLevels(x)
		if err != nil {
			return nil, err
		}
		alts = append(alts, m)
	}
	return alts, nil
}

func compileLevels(levels []string) (simpleMatch, error) {
	m := make(simpleMatch, len(levels))
	for i, s := range levels {
		re, err := regexp.Compile(rewrite(s))
		if err != nil {
			return nil, fmt.Errorf("element %d of the pattern (%q): %v", i, s, err)
		}
		m[i] = re
	}
	return m, nil
}

// rewrite gives a level of a pattern only printable characters and no white space, as go test
// names its subtests.
func rewrite(s string) string {
	b := []byte{}
	for _, r := range s {
		switch {
		case isSpace(r):
			b = append(b, '_')
		case !strconv.IsPrint(r):
			s := strconv.QuoteRune(r)
			b = append(b, s[1:len(s)-1]...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}

func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		// Not the same as Unicode's Z class.
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
	} else {
		if r <= 0x200a {
			return true
		}
		switch r {
		case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
			return true
		}
	}
	return false
}
