package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

// gitlabEnv reads the GitLab API settings GitLab CI exports; release
// managers export the same three on a laptop.
func gitlabEnv(getenv func(string) string) (gitlab.Options, string, error) {
	opt := gitlab.Options{BaseURL: getenv("CI_API_V4_URL"), Token: getenv("GITLAB_TOKEN")}
	err := cli.RequireEnv("--merge-request", "the Developer role (or above) to push branches and open merge requests",
		getenv, "CI_API_V4_URL", "CI_PROJECT_ID", "GITLAB_TOKEN")
	return opt, getenv("CI_PROJECT_ID"), err
}

func runMergeRequest(ctx context.Context, a *promote.Apply, o *options, ios *ioStreams, getenv func(string) string,
	build promote.BuildFunc, sets []promote.KeyValue) error {
	opt, project, err := gitlabEnv(getenv)
	if err != nil {
		return err
	}
	client, err := gitlab.New(opt)
	if err != nil {
		return err
	}
	m := &promote.MergeRequest{Apply: *a, GitLab: client, Project: project, Labels: []string{"gitops-promote"}}
	run, err := m.Run(ctx, build, func(p *promote.Plan) string { return promote.BranchFor(p, sets) })
	if err != nil {
		return err
	}
	logGates(a.Log, run.Plan)
	if o.output == "json" {
		return writeMRJSON(ios, o, run)
	}
	if err := writeResult(ios, o, &run.Result); err != nil {
		return err
	}
	if run.Closed != nil {
		fmt.Fprintf(ios.Out, "merge request closed (%s already holds its values): %s\n", o.branch, run.Closed.URL)
	}
	if run.Pushed {
		fmt.Fprintf(ios.Out, "pushed %s to %s/%s\n", short(run.Commit), run.Remote, run.SourceBranch)
	}
	if !run.UpToDate {
		state := "updated"
		if run.MR.Created {
			state = "opened"
		} else if !run.MR.Updated && !run.Pushed {
			state = "unchanged"
		}
		fmt.Fprintf(ios.Out, "merge request %s (%s): %s\n", state, run.SourceBranch, run.MR.URL)
	}
	return nil
}

func writeMRJSON(ios *ioStreams, o *options, run *promote.MRRun) error {
	type mrJSON struct {
		URL     string `json:"url"`
		IID     int64  `json:"iid"`
		Created bool   `json:"created"`
		Updated bool   `json:"updated"`
		Closed  bool   `json:"closed,omitempty"`
	}
	var out struct {
		resultJSON
		SourceBranch string  `json:"sourceBranch"`
		MergeRequest *mrJSON `json:"mergeRequest,omitempty"`
	}
	out.resultJSON = toJSON(o, &run.Result)
	out.SourceBranch = run.SourceBranch
	if !run.UpToDate {
		out.MergeRequest = &mrJSON{URL: run.MR.URL, IID: run.MR.IID, Created: run.MR.Created, Updated: run.MR.Updated}
	} else if run.Closed != nil {
		out.MergeRequest = &mrJSON{URL: run.Closed.URL, IID: run.Closed.IID, Closed: true}
	}
	enc := json.NewEncoder(ios.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
