package parity

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// ourApp is one app as manifestdiff renders it (the JSON of its hidden
// `parity` verb, built with -tags parity).
type ourApp struct {
	Env, Name, Namespace string
	Objects              []ourObject
	Warnings             []string
	Error                string
}

type ourObject struct {
	APIVersion, Kind, Namespace, Name string
	Object                            map[string]any
	GenerateName                      string
}

type ourRun struct {
	Deployment deployment
	Apps       []ourApp
}

// ours runs manifestdiff on repo at rev.
func ours(t *testing.T, repo, rev, cache string) ourRun {
	t.Helper()
	bin := mustEnv(t, "PARITY_MANIFESTDIFF")
	cmd := exec.Command(bin, "parity", rev, "--repo", repo, "--cache-dir", cache)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("manifestdiff parity %s in %s: %v\n%s", rev, repo, err, errb.Bytes())
	}
	var run ourRun
	if err := json.Unmarshal(out.Bytes(), &run); err != nil {
		t.Fatalf("reading manifestdiff's parity output: %v", err)
	}
	return run
}
