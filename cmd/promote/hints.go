package main

import (
	"context"
	"errors"
	"strings"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/patch"
	"github.com/gitops-promote/gitops-promote/internal/promote"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// hints tell the user the one flag or step that gets past an error.
var hints = []struct {
	err  error
	hint string
}{
	{versions.ErrDowngrade, "re-run with --allow-downgrade to accept it"},
	{versions.ErrPromotionPath, "re-run with --force-path to promote out of order"},
	{versions.ErrUnpinned, "pin an exact version first"},
	{promote.ErrDirty, "commit or stash them first"},
	{charts.ErrUnreachable, "check the network and the repository URL, or re-run with --skip-chart-check"},
	{promote.ErrChartMissing, "publish the chart first, or re-run with --skip-chart-check"},
	{promote.ErrChartCheck, "re-run with --skip-chart-check to skip the look-up"},
	{promote.ErrOrdering, "fix the ordering, or re-run with --ignore-ordering"},
	{promote.ErrForeignFields, "re-run with --force-fields to restore them too, or leave their components out with --only"},
	{promote.ErrNothingToRollBack, "see promote history --env ENV, and name the point with --to COMMIT"},
	{rejected.ErrRejected, "promote another version, or re-run with --allow-rejected REASON (recorded in the commit)"},
	{patch.ErrDuplicateKey, "keep one of them: YAML readers disagree about which one wins"},
}

// message folds err into one line and appends the matching hint. A stale
// source environment keeps its lines: one per differing field.
func message(err error) string {
	if errors.Is(err, promote.ErrSourceMoved) {
		return strings.TrimRight(err.Error(), "\n")
	}
	msg := cli.Line(err)
	if errors.Is(err, cli.ErrInterrupted) || errors.Is(err, context.Canceled) {
		return msg // no flag gets past a signal
	}
	if errors.Is(err, gates.ErrRefused) {
		// one reason per line, as the gates wrote them
		return strings.TrimRight(err.Error(), "\n") + "\n  (" + gateHint(err) + ")"
	}
	for _, h := range hints {
		if errors.Is(err, h.err) {
			return msg + " (" + h.hint + ")"
		}
	}
	return msg
}

func asRefused(err error) (*gates.RefusedError, bool) {
	var re *gates.RefusedError
	ok := errors.As(err, &re)
	return re, ok
}
