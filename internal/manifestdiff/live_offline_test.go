package manifestdiff

import (
	"context"
	"errors"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/kube"
)

// --live on envs that do not allow it is bad input: refused before any
// render or cluster call.
func TestLiveNeedsALiveEnv(t *testing.T) {
	fleet := exampleFleet(t)
	cfg, err := config.Parse(fleet[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher()
	d := &Diff{Config: cfg, Charts: f, Base: Side{Name: "b", Rev: "b", FS: fleet}, Head: Side{Name: "h", Rev: "h", FS: fleet},
		Live: &Live{Kube: kube.Options{Kubeconfig: "/nonexistent"}}}
	if _, err := d.Run(context.Background()); !errors.Is(err, ErrNoLiveEnv) {
		t.Fatalf("err = %v, want ErrNoLiveEnv", err)
	}
	if len(f.counts()) != 0 {
		t.Errorf("rendered before refusing: %v", f.counts())
	}
}
