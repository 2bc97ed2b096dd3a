package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPrefaultStartsEarly: the package that starts populating the heap
// (cmd/promote/internal/warm) is initialized before the heavy package
// inits, so that its goroutine works on the other core while they run. An
// import added to internal/prefault that the runtime initializes late
// would move it behind them and quietly undo the gain.
func TestPrefaultStartsEarly(t *testing.T) {
	cmd := exec.Command(promoteBinary(t), "--version")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promote --version: %v\n%s", err, out)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	const warm = "github.com/gitops-promote/gitops-promote/cmd/promote/internal/warm"
	at := slices.Index(order, warm)
	if at < 0 {
		t.Fatalf("%s is not initialized (inittrace lists %d packages)", warm, len(order))
	}
	for _, heavy := range []string{
		"github.com/Masterminds/semver/v3",
		"github.com/ProtonMail/go-crypto/openpgp/internal/ecc",
		"github.com/shopspring/decimal",
		"gitlab.com/gitlab-org/api/client-go",
		"golang.org/x/crypto/ssh",
	} {
		i := slices.Index(order, heavy)
		if i < 0 {
			t.Errorf("%s has no init any more: update this list from GODEBUG=inittrace=1 promote --version", heavy)
		} else if i < at {
			t.Errorf("%s is initialized before %s (%d < %d)", heavy, warm, i, at)
		}
	}
}

// TestPrefaultStartsNoCollection: the filler allocation that moves the
// heap frontier (internal/prefault) must leave package init's heap below
// the collector's first cycle, which would cost more than the populating
// saves. Where the frontier falls is random (the heap starts at a random
// offset), so it takes many runs: a filler limit 0.5 MB too high started
// a cycle in 7% of them.
func TestPrefaultStartsNoCollection(t *testing.T) {
	bin := promoteBinary(t)
	for range 40 {
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(cmd.Environ(), "GODEBUG=gctrace=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("promote --version: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "gc ") {
				t.Fatalf("a collection ran during package init: %s", line)
			}
		}
	}
}
