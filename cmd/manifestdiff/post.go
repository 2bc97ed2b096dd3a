package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// poster upserts the markdown report as the merge request's sticky note.
type poster struct {
	client gitlab.API
	mr     gitlab.MR
	limit  int
}

// newPoster reads what GitLab CI exports for merge request pipelines.
func newPoster(getenv func(string) string, limit int) (*poster, error) {
	names := []string{"CI_API_V4_URL", "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID", "GITLAB_TOKEN"}
	if err := cli.RequireEnv("--post", "the Reporter role (or above) to write merge request notes", getenv, names...); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for _, name := range names {
		vars[name] = getenv(name)
	}
	iid, err := strconv.ParseInt(vars["CI_MERGE_REQUEST_IID"], 10, 64)
	if err != nil || iid <= 0 {
		return nil, fmt.Errorf("--post: CI_MERGE_REQUEST_IID %q is not a merge request number", vars["CI_MERGE_REQUEST_IID"])
	}
	client, err := gitlab.New(gitlab.Options{BaseURL: vars["CI_API_V4_URL"], Token: vars["GITLAB_TOKEN"]})
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = gitlab.PageLimit(report.Marker)
	}
	return &poster{client: client, mr: gitlab.MR{Project: vars["CI_PROJECT_ID"], IID: iid}, limit: limit}, nil
}

func (p *poster) upsert(ctx context.Context, rep report.Report, link string, ios *ioStreams, quiet bool) error {
	var md bytes.Buffer
	if err := report.MarkdownWith(&md, rep, report.MarkdownOptions{ReportURL: link}); err != nil {
		return err
	}
	pages := gitlab.SplitMarkdown(md.String(), p.limit)
	res, err := p.client.UpsertNote(ctx, p.mr, report.Marker, pages)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(ios.ErrOut, "merge request note: %s (%s: %d created, %d updated, %d unchanged, %d deleted)\n",
			res.URL, cli.Plural(len(pages), "page", "pages"), res.Created, res.Updated, res.Unchanged, res.Deleted)
	}
	return nil
}
