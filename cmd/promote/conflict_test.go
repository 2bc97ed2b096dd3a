package main

import (
	"strings"
	"testing"
)

// TestConflictRerunLandsOnTop is issue 9's second item, with two real
// clones over each transport: B pins a field and pushes; A, not pulled,
// pins the same field to another value. A's run stops on the conflict,
// naming B's commit and saying exactly what re-running will do, with A's
// branch at the remote tip and nothing pushed. Re-running does that: A's
// value lands on top of B's commit, with no force and no merge.
func TestConflictRerunLandsOnTop(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			f := newFleet(t)
			gitRun(t, f.Remote, "config", "receive.denyNonFastForwards", "true")
			srv := serveRemote(t, f, transport)
			env := processEnv(t, srv.env...)
			a, b := f.clone(t, "a", "Alice Release"), f.clone(t, "b", "Bob Builder")
			srv.use(t, a)
			srv.use(t, b)
			base := gitRun(t, f.Remote, "rev-parse", "main")
			pin := func(dir, value string) result {
				return runPromote(t, dir, env, "pin", "--env", "qa", "ledger-node.api.imageTag="+value, "--push", "--skip-chart-check")
			}
			if r := pin(b, "v3.3.0"); r.code != 0 {
				t.Fatalf("B's pin: exit %d\n%s", r.code, r.errOut)
			}
			bobs := gitRun(t, f.Remote, "rev-parse", "main")

			r := pin(a, "v3.4.0")
			if r.code != 1 {
				t.Fatalf("A's stale pin: exit %d, want 1\n%s", r.code, r.errOut)
			}
			for _, want := range []string{`ledger-node.api.imageTag is now "v3.3.0" on origin/main`, "Bob Builder", bobs[:12],
				"nothing was pushed, and your branch now matches origin/main",
				"re-running the same command will set ledger-node.api.imageTag from v3.3.0 to v3.4.0 on top of it"} {
				if !strings.Contains(r.errOut, want) {
					t.Errorf("first message lacks %q:\n%s", want, r.errOut)
				}
			}
			if got := gitRun(t, f.Remote, "rev-parse", "main"); got != bobs {
				t.Fatalf("remote moved to %s", got)
			}
			if got := gitRun(t, a, "rev-parse", "HEAD"); got != bobs {
				t.Errorf("A's HEAD %s, want B's commit %s (A's own commit dropped)", got, bobs)
			}
			if st := gitRun(t, a, "status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("A's status:\n%s", st)
			}

			r = pin(a, "v3.4.0")
			if r.code != 0 {
				t.Fatalf("A's rerun: exit %d\n%s", r.code, r.errOut)
			}
			if parent := gitRun(t, f.Remote, "rev-parse", "main^1"); parent != bobs {
				t.Errorf("A's commit is on %s, want on B's %s", parent, bobs)
			}
			if merges := gitRun(t, f.Remote, "rev-list", "--merges", "main"); merges != "" {
				t.Errorf("merge commits on main: %s", merges)
			}
			if n := gitRun(t, f.Remote, "rev-list", "--count", base+"..main"); n != "2" {
				t.Errorf("%s commits since the base, want B's and A's", n)
			}
			if got := gitRun(t, f.Remote, "show", "main:versions/qa.yaml"); !strings.Contains(got, `imageTag: "v3.4.0"`) {
				t.Errorf("qa does not hold A's v3.4.0:\n%s", got)
			}
			if head := gitRun(t, a, "rev-parse", "HEAD"); head != gitRun(t, f.Remote, "rev-parse", "main") {
				t.Errorf("A's HEAD %s is not the remote tip", head)
			}
		})
	}
}
