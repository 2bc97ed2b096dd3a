// Package rendercheck gets the sync-readiness findings of rendered
// manifests for promote, from the manifestdiff executable. promote links
// no renderer (Helm's and Kubernetes' package init alone would cost it
// ~60 ms on every run), so what needs rendering (the syncReady gate,
// promote check --rendered) runs manifestdiff beside it and reads its JSON
// report: the rendering, the rules, the severities of .promote.yaml and
// the --fail-on policy stay manifestdiff's, in one place. It never prints.
package rendercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// Tool is the executable's name.
const Tool = "manifestdiff"

// ErrNotFound marks a manifestdiff that is neither beside promote nor on
// PATH.
var ErrNotFound = errors.New(Tool + " not found beside promote nor on PATH")

// Finding is one finding of manifestdiff's JSON report (docs/manifestdiff.md,
// Sync-readiness); Raw keeps it as manifestdiff wrote it.
type Finding struct {
	Rule        string `json:"rule"`
	Severity    string `json:"severity"`
	Env         string `json:"env"`
	App         string `json:"app"`
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Message     string `json:"message"`
	Preexisting bool   `json:"preexisting,omitempty"`
}

// AppError is an app manifestdiff could not render or read: it cannot be
// judged, which is never a pass.
type AppError struct {
	Env   string `json:"env"`
	Name  string `json:"name"`
	Error string `json:"error"`
}

// Result is what one manifestdiff run found.
type Result struct {
	Findings []Finding
	// Raw is the report's findings array as written, for a caller that
	// passes it on unchanged.
	Raw json.RawMessage
	// Errors are the apps that failed to render or read.
	Errors []AppError
	// Rendered counts the apps the run rendered (not unchanged).
	Rendered int
	// Failed is manifestdiff's own refusal (exit 1 after writing the
	// report: a finding at --fail-on's severity, an app error), its last
	// stderr line; "" when it exited 0.
	Failed string
}

// NewErrors are the findings of severity error in env that the base
// revision did not have.
func (r *Result) NewErrors(env string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == "error" && !f.Preexisting && (env == "" || f.Env == env) {
			out = append(out, f)
		}
	}
	return out
}

// Shown are the findings manifestdiff's terminal diff and note list:
// info findings are in its JSON report only.
func (r *Result) Shown() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity != "info" {
			out = append(out, f)
		}
	}
	return out
}

// Line is the finding on one line, as manifestdiff's terminal diff lists
// it: "error project-cluster-resource prod/app rbac.authorization.k8s.io/v1
// ClusterRole reader: message".
func (f Finding) Line() string {
	app := f.Env
	if f.App != "" {
		app += "/" + f.App
	}
	s := f.Severity + " " + f.Rule + " " + app
	if f.Kind != "" {
		name := f.Name
		if f.Namespace != "" {
			name = f.Namespace + "/" + name
		}
		s += " " + f.APIVersion + " " + f.Kind + " " + name
	}
	return s + ": " + f.Message
}

// Runner runs manifestdiff against one repository.
type Runner struct {
	Exe  string    // the executable (Find)
	Repo *git.Repo // the repository: --repo, and where a planned commit is written
	Env  []string  // the child's environment; nil inherits this process's
	// Stderr receives manifestdiff's progress and warnings; nil drops them.
	Stderr func(line string)
}

// Find returns manifestdiff beside self (promote's own executable), else
// the first one in path (a PATH value).
func Find(self, path string) (string, error) {
	var dirs []string
	if self != "" {
		dirs = append(dirs, filepath.Dir(self))
	}
	dirs = append(dirs, filepath.SplitList(path)...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, Tool)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Revision judges every app of envs (all when none) at rev alone: base and
// head the same commit with --all, so every finding counts as new, and
// failOn is manifestdiff's --fail-on.
func (r *Runner) Revision(ctx context.Context, rev string, envs []string, failOn string) (*Result, error) {
	args := []string{"--base", rev, "--head", rev, "--all", "--fail-on", failOn}
	for _, e := range envs {
		args = append(args, "--env", e)
	}
	return r.run(ctx, args)
}

// Promotion judges env after files are written on base: it writes them as
// a commit to the object store only (git.Repo.CommitFiles, the commit the
// promotion itself writes; no ref, index or file moves), and has
// manifestdiff compare it with base. Only the apps whose inputs the files
// change are rendered, at both commits: a finding base has is preexisting.
func (r *Runner) Promotion(ctx context.Context, env string, base plumbing.Hash, files map[string][]byte) (*Result, error) {
	// A fixed identity and time: the same plan gives the same commit, and
	// nothing names it but this run.
	sig := git.Signature{Name: "gitops-promote", Email: "gitops-promote@localhost"}
	planned, err := r.Repo.CommitFiles(base, files, "promote: the planned promotion, for its sync-readiness check\n", sig, sig, time.Unix(0, 0).UTC())
	if err != nil {
		return nil, fmt.Errorf("writing the planned commit for manifestdiff: %w", err)
	}
	return r.run(ctx, []string{"--base", base.String(), "--head", planned.String(), "--env", env, "--fail-on", "never"})
}
