package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// The command tree is built and parsed on every run: its cost is part of
// promote's startup (measured, never asserted: go test -bench Parse).
func BenchmarkParse(b *testing.B) {
	for _, args := range []string{"plan --from qa --to preprod", "apply --from qa --to preprod --push -o json", "plan --help"} {
		b.Run(args, func(b *testing.B) {
			ios := &ioStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
			for b.Loop() {
				root := newRootCmd(ios, func(context.Context, *options) error { return nil })
				root.SetArgs(strings.Fields(args))
				if _, err := root.ExecuteC(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
