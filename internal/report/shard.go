package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// ErrShards marks shard reports that do not make one whole report.
var ErrShards = errors.New("shard reports do not make one report")

// Shard says which share of the apps a report holds: shard Index of Total
// (1-based, as GitLab's CI_NODE_INDEX), and the environments of the whole
// run in report order, which Merge restores.
type Shard struct {
	Index int      `json:"index"`
	Total int      `json:"total"`
	Envs  []string `json:"envs"`
}

// ReadShard reads a shard's JSON report (JSON with Shard set). Reports
// with a live comparison cannot be sharded, so none is read.
func ReadShard(r io.Reader, name string) (Report, error) {
	var doc jsonReport
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return Report{}, fmt.Errorf("reading %s: %w", name, err)
	}
	if doc.Shard == nil {
		return Report{}, fmt.Errorf("%s: not a shard's report (run manifestdiff -o json with --shard or in a parallel job): %w", name, ErrShards)
	}
	if len(doc.LiveEnvs) > 0 {
		return Report{}, fmt.Errorf("%s: has a live comparison, which is never sharded: %w", name, ErrShards)
	}
	rep := Report{Base: doc.Base, Head: doc.Head, Shard: doc.Shard, PendingSettings: doc.Pending, Findings: doc.Findings,
		Apps: make([]App, 0, len(doc.Apps))}
	for _, ja := range doc.Apps {
		if ja.Live != nil {
			return Report{}, fmt.Errorf("%s: app %s/%s has a live comparison, which is never sharded: %w", name, ja.Env, ja.Name, ErrShards)
		}
		a := App{Env: ja.Env, Name: ja.Name, Namespace: ja.Namespace, Status: ja.Status, Error: ja.Error, NotRendered: ja.NotRendered, Warnings: ja.Warnings, Moves: fromJSONMoves(ja.Moves)}
		for _, jr := range ja.Resources {
			rd := diff.ResourceDiff{APIVersion: jr.APIVersion, Kind: jr.Kind, Namespace: jr.Namespace, Name: jr.Name,
				GenerateName: jr.GenerateName, Status: diff.Status(jr.Status), Diff: jr.Diff, Generated: jr.Generated}
			for _, k := range jr.SecretKeys {
				rd.SecretKeys = append(rd.SecretKeys, diff.SecretKeyChange{Key: k.Key, Status: k.Status})
			}
			a.Resources = append(a.Resources, rd)
		}
		rep.Apps = append(rep.Apps, a)
	}
	return rep, nil
}

// Merge joins the reports of every shard of one run into the report the
// run gives unsharded: the same revisions, each shard 1..Total once, no
// app twice; apps in the run's environment order, then by name.
func Merge(shards []Report) (Report, error) {
	if len(shards) == 0 {
		return Report{}, fmt.Errorf("no shard reports: %w", ErrShards)
	}
	first := shards[0]
	if first.Shard == nil {
		return Report{}, fmt.Errorf("report 1 is not a shard's: %w", ErrShards)
	}
	total := first.Shard.Total
	seen := make([]bool, total+1)
	apps := map[string]bool{}
	out := Report{Base: first.Base, Head: first.Head, PendingSettings: first.PendingSettings}
	for _, s := range shards {
		switch {
		case s.Shard == nil:
			return Report{}, fmt.Errorf("a report is not a shard's: %w", ErrShards)
		case s.Base != first.Base || s.Head != first.Head:
			return Report{}, fmt.Errorf("shard %d compares %s..%s, shard %d %s..%s: %w",
				s.Shard.Index, s.Base, s.Head, first.Shard.Index, first.Base, first.Head, ErrShards)
		case s.Shard.Total != total || !slices.Equal(s.Shard.Envs, first.Shard.Envs):
			return Report{}, fmt.Errorf("shard %d/%d is not of the same run as shard %d/%d: %w",
				s.Shard.Index, s.Shard.Total, first.Shard.Index, total, ErrShards)
		case s.Shard.Index < 1 || s.Shard.Index > total:
			return Report{}, fmt.Errorf("shard %d/%d: index out of range: %w", s.Shard.Index, total, ErrShards)
		case seen[s.Shard.Index]:
			return Report{}, fmt.Errorf("shard %d/%d given twice: %w", s.Shard.Index, total, ErrShards)
		}
		seen[s.Shard.Index] = true
		out.Findings = append(out.Findings, s.Findings...)
		for _, a := range s.Apps {
			if !slices.Contains(first.Shard.Envs, a.Env) {
				return Report{}, fmt.Errorf("shard %d/%d: app %s/%s of an env the run did not diff: %w", s.Shard.Index, total, a.Env, a.Name, ErrShards)
			}
			key := a.Env + "\x00" + a.Name
			if apps[key] {
				return Report{}, fmt.Errorf("app %s/%s is in two shards: %w", a.Env, a.Name, ErrShards)
			}
			apps[key] = true
			out.Apps = append(out.Apps, a)
		}
	}
	var missing []string
	for i := 1; i <= total; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, total))
		}
	}
	if len(missing) > 0 {
		return Report{}, fmt.Errorf("missing shard %s: %w", strings.Join(missing, ", "), ErrShards)
	}
	// an env's own findings come from every shard that rendered its apps
	syncready.Order(out.Findings, first.Shard.Envs)
	out.Findings = slices.Compact(out.Findings)
	rank := map[string]int{}
	for i, e := range first.Shard.Envs {
		rank[e] = i
	}
	slices.SortStableFunc(out.Apps, func(a, b App) int {
		if ra, rb := rank[a.Env], rank[b.Env]; ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}
