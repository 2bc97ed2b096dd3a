package manifestdiff

import (
	"errors"
	"fmt"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// ErrRunTooLarge: the run rendered more than render.MaxRunBytes; every
// app rendered after that fails with it.
var ErrRunTooLarge = errors.New("the run rendered too much")

// count adds the last part's bytes to the run's and checks the app's
// sources together against render.MaxAppBytes (each source is checked
// by render itself) and the run's against render.MaxRunBytes, as each
// source is rendered: a runaway app stops at its first source past them.
func (d *Diff) count(app *argo.App, parts []part) error {
	n := 0
	for _, p := range parts {
		n += len(p.m)
	}
	if n > render.MaxAppBytes {
		return fmt.Errorf("env %s, app %s: %w", app.Env, app.Name, render.AppTooLarge(n))
	}
	if total := d.rendered.Add(int64(len(parts[len(parts)-1].m))); total > render.MaxRunBytes {
		return fmt.Errorf("env %s, app %s: %w (more than %d GiB)", app.Env, app.Name, ErrRunTooLarge, render.MaxRunBytes>>30)
	}
	return nil
}
