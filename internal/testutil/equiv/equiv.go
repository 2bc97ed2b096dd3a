// Package equiv checks that a function replacing another (a string test
// written for a regular expression that was compiled at every start) says
// what the replaced one said: on a table of edge cases, and in a fuzz
// target seeded with that table.
package equiv

import "testing"

// Pair is a replacement and what it replaces, named for messages.
type Pair[T comparable] struct {
	Name      string
	Got, Want func(string) T
}

// Check fails t when the two disagree on s.
func (p Pair[T]) Check(t *testing.T, s string) {
	t.Helper()
	if got, want := p.Got(s), p.Want(s); got != want {
		t.Fatalf("%s(%q) = %v, the replaced code says %v", p.Name, s, got, want)
	}
}

// Table checks every case.
func (p Pair[T]) Table(t *testing.T, cases []string) {
	t.Helper()
	for _, s := range cases {
		p.Check(t, s)
	}
}

// Fuzz seeds f with cases and checks every input.
func (p Pair[T]) Fuzz(f *testing.F, cases []string) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(p.Check)
}
