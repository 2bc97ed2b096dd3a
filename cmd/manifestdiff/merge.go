package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/manifestdiff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// newMergeCmd is `manifestdiff merge SHARD.json...`: the job after a
// sharded run joins the shards' JSON reports into the one report, in any
// format, and posts the note. It shares the root's options struct and run
// function, so parsing is tested the same way.
func newMergeCmd(o *options, run runFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Join the JSON reports of a sharded run into one report (and the merge request note)",
		Long: `merge joins the JSON reports that the jobs of a sharded run wrote (each
with --shard INDEX/TOTAL, or in a GitLab CI parallel: job, which sets
CI_NODE_INDEX and CI_NODE_TOTAL) into the report one unsharded run gives,
byte for byte. Every shard of the run must be given once, all of the same
base and head revisions; anything else is an error and nothing is written.`,
		Example: `  manifestdiff merge shards/*.json -o markdown --post
  manifestdiff merge shard-1.json shard-2.json -o html --output-file manifest-diff.html --post`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.Usagef(cmd, "merge needs the shards' JSON reports")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.merge = args
			if !slices.Contains(failOnValues, o.failOn) {
				return cli.Usagef(cmd, "--fail-on %s: must be %s", o.failOn, strings.Join(failOnValues, ", "))
			}
			if o.reportURL != "" {
				if err := checkReportURL(o.reportURL); err != nil {
					return cli.Usagef(cmd, "--report-url %s: %v", o.reportURL, err)
				}
			}
			return run(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	cli.EnumVarP(cmd, &o.output, "output", "o", formats[0], formats, "report format: diff, markdown, json or html")
	fs.StringVar(&o.outputFile, "output-file", "", "write the report to `FILE` instead of stdout, and a one-line summary to stderr")
	fs.StringVar(&o.reportURL, "report-url", "", "`URL` of the HTML report as published, for the note's links (default with -o html --output-file FILE --post in GitLab CI: $CI_JOB_URL/artifacts/file/FILE)")
	fs.BoolVar(&o.detailedExitCode, "detailed-exitcode", false, "exit 2 when any app is added, removed or changed (0 when none, 1 on errors)")
	fs.BoolVar(&o.post, "post", false, "edit the merge request's note to hold the markdown report (GitLab CI merge request pipelines)")
	fs.StringVar(&o.failOn, "fail-on", "error", "exit 1 when the change adds a sync-readiness finding of `SEVERITY` or worse: error, warning, or never")
	return cmd
}

// runMerge reads the shards, merges them and reports like a run: an app
// that failed to render in a shard fails the merge's exit code too.
func runMerge(ctx context.Context, o *options, ios *ioStreams, getenv func(string) string) error {
	var post *poster
	if o.post {
		var err error
		if post, err = newPoster(getenv, o.pageLimit); err != nil {
			return err
		}
	}
	link, note := reportURL(o, getenv)
	if note != "" {
		fmt.Fprintf(ios.ErrOut, "manifestdiff: warning: %s\n", note)
	}
	var shards []report.Report
	for _, name := range o.merge {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		rep, err := report.ReadShard(f, name)
		f.Close()
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		shards = append(shards, rep)
	}
	rep, err := report.Merge(shards)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	// each shard masked what its job knew; this job may know more (its
	// own environment), and a shard file is only as safe as its job
	rep.MaskContent(ios.Secrets.Content)
	if err := writeReport(o, ios, rep, link); err != nil {
		return err
	}
	if post != nil {
		if err := post.upsert(ctx, rep, link, ios, o.Quiet); err != nil {
			return err
		}
	}
	s := rep.Summary()
	if s.ByStatus.Error > 0 {
		return fmt.Errorf("%d app(s) failed to render: %w", s.ByStatus.Error, manifestdiff.ErrRender)
	}
	if err := willNotSync(rep, o.failOn); err != nil {
		return err
	}
	if o.detailedExitCode && s.Changed() {
		return errChanged
	}
	return nil
}

// shardOf is the share of apps this run diffs: --shard INDEX/TOTAL, else
// GitLab CI's CI_NODE_INDEX of CI_NODE_TOTAL in a parallel: job. A
// sharded run writes JSON for merge only: it never posts, and diffs no
// cluster.
func shardOf(o *options, getenv func(string) string) (manifestdiff.Shard, error) {
	spec, from := o.shard, "--shard"
	if spec == "" {
		idx, total := getenv("CI_NODE_INDEX"), getenv("CI_NODE_TOTAL")
		if idx == "" || total == "" || total == "1" {
			return manifestdiff.Shard{}, nil
		}
		spec, from = idx+"/"+total, "CI_NODE_INDEX/CI_NODE_TOTAL (a parallel: job; --shard 1/1 diffs every app)"
	}
	s, err := parseShard(spec)
	if err != nil {
		return s, fmt.Errorf("%s %s: %w", from, spec, err)
	}
	if s.Total == 1 {
		return manifestdiff.Shard{}, nil
	}
	switch {
	case o.output != "json":
		return s, fmt.Errorf("shard %s from %s: a shard writes -o json for `manifestdiff merge`, not -o %s", spec, from, o.output)
	case o.post:
		return s, fmt.Errorf("shard %s from %s: --post from the job that runs `manifestdiff merge`, not from a shard", spec, from)
	case o.live:
		return s, fmt.Errorf("shard %s from %s: --live is never sharded", spec, from)
	}
	return s, nil
}

var errShardSyntax = errors.New("want INDEX/TOTAL, 1 <= INDEX <= TOTAL (e.g. 2/4)")

func parseShard(spec string) (manifestdiff.Shard, error) {
	i, t, ok := strings.Cut(spec, "/")
	idx, err1 := strconv.Atoi(i)
	total, err2 := strconv.Atoi(t)
	if !ok || err1 != nil || err2 != nil || total < 1 || idx < 1 || idx > total {
		return manifestdiff.Shard{}, errShardSyntax
	}
	return manifestdiff.Shard{Index: idx, Total: total}, nil
}
