package promote

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/gates"
)

// A refused promotion says why; an overridden one records who and why in
// the commit's trailers.
func TestGateRefusesAndRecordsOverrides(t *testing.T) {
	repo, cfg, shas := statusRepo(t)
	base := plumbing.NewHash(shas[len(shas)-1])
	tree, err := repo.TreeFS(base)
	if err != nil {
		t.Fatal(err)
	}
	checker := &gates.Checker{Cfg: cfg, Repo: repo, NoGitLab: "CI_API_V4_URL is not set", Now: func() time.Time { return statusNow }}
	plan := func() *Plan {
		p, err := BuildPromotion(tree, cfg, PromoteRequest{From: "preprod", To: "prod"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan()
	err = GatesFor(checker, nil, "alice")(context.Background(), GateCommits{Base: base, Source: base}, p)
	if !errors.Is(err, gates.ErrRefused) {
		t.Fatalf("want a refusal, got %v", err)
	}
	for _, want := range []string{"sourceHealthy and minSoak: cannot evaluate: GitLab is not configured (CI_API_V4_URL is not set)",
		"syncWindow: prod closed for ledger-gateway-prod", "opens Wed 2025-01-15 22:00 CET"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal does not say %q: %v", want, err)
		}
	}
	p = plan()
	overrides := map[string]string{"sourceHealthy": "preprod verified by hand", "minSoak": "hotfix", "syncWindow": "CAB-7 emergency change"}
	if err := GatesFor(checker, overrides, "alice")(context.Background(), GateCommits{Base: base}, p); err != nil {
		t.Fatalf("overridden: %v", err)
	}
	msg := p.Message(shas[2])
	for _, want := range []string{"Gate-Overridden: sourceHealthy by alice: preprod verified by hand\n",
		"Gate-Overridden: minSoak by alice: hotfix\n", "Gate-Overridden: syncWindow by alice: CAB-7 emergency change\n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// A pin has no source env: the gates do not apply.
	pin, err := BuildPin(tree, cfg, PinRequest{Env: "prod", Sets: []KeyValue{{Key: "gateway.imageTag", Value: "v1.11"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := GatesFor(checker, nil, "alice")(context.Background(), GateCommits{Base: base, Source: base}, pin); err != nil || pin.Gates != nil {
		t.Errorf("pin: %v %+v", err, pin.Gates)
	}
}

// A rollback is checked against the target's syncWindow only: prod's
// health gates, which cannot be evaluated here, do not refuse it; its
// closed window does, until overridden, and the override is recorded.
func TestGateRollbackOnlySyncWindow(t *testing.T) {
	repo, cfg, shas := statusRepo(t)
	base := plumbing.NewHash(shas[len(shas)-1])
	checker := &gates.Checker{Cfg: cfg, Repo: repo, NoGitLab: "CI_API_V4_URL is not set", Now: func() time.Time { return statusNow }}
	rollback := func() *Plan {
		return &Plan{Verb: "rollback", To: "prod", Rollback: &RollbackInfo{To: shas[0], Reason: "bad release"}}
	}
	p := rollback()
	err := GatesFor(checker, nil, "alice")(context.Background(), GateCommits{Base: base, Source: base}, p)
	if !errors.Is(err, gates.ErrRefused) || !strings.Contains(err.Error(), "syncWindow: prod closed") {
		t.Fatalf("want the sync window's refusal, got %v", err)
	}
	if strings.Contains(err.Error(), "sourceHealthy") || strings.Contains(err.Error(), "minSoak") {
		t.Errorf("health gates applied to a rollback: %v", err)
	}
	p = rollback()
	if err := GatesFor(checker, map[string]string{"syncWindow": "CAB-8 rollback"}, "alice")(context.Background(),
		GateCommits{Base: base, Source: base}, p); err != nil {
		t.Fatalf("overridden: %v", err)
	}
	msg := p.Message(base.String())
	for _, want := range []string{"chore(prod): roll back to " + shas[0][:12] + " [skip ci]\n", "Rolled-Back-To: " + shas[0] + "\n",
		"Rollback-Reason: bad release\n", "Gate-Overridden: syncWindow by alice: CAB-8 rollback\n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}
