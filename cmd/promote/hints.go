package main

import (
	"errors"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/promote"
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
	{promote.ErrChartMissing, "publish the chart first, or re-run with --skip-chart-check"},
	{promote.ErrConflict, "re-run to promote on top of the new values"},
	{promote.ErrOrdering, "fix the ordering, or re-run with --ignore-ordering"},
}

// message folds err into one line and appends the matching hint.
func message(err error) string {
	msg := cli.Line(err)
	for _, h := range hints {
		if errors.Is(err, h.err) {
			return msg + " (" + h.hint + ")"
		}
	}
	return msg
}
