package report

import (
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Story is the report as every presenter tells it, in this order: what
// moved in each env (Moves), then the changes beyond those moves (a
// person's values and manifests, and anything the moves do not explain),
// then, folded, the changes that only follow from a move (Mechanical).
// The note, the HTML page and the terminal diff read the split from here,
// so they agree on it.
type Story struct {
	Moves []EnvMoves
	// Mechanical counts what follows from the moves.
	Mechanical MechanicalCounts

	mechApp map[string]bool // env/name: every change of the app follows
	mechRes map[string]bool // memberKey: the resource's change follows
}

// MechanicalCounts counts the changes that follow from version moves.
type MechanicalCounts struct {
	// Apps have only such changes; Touched have some; Resources are
	// every such resource, those of apps with other changes too.
	Apps, Touched, Resources int
	// Lines counts changed lines by kind (LineKinds).
	Lines map[string]int
}

// Story splits the report (see Story). A change follows from a move of
// its env, whichever app the move belongs to: the root app's rendered
// Applications carry the targetRevisions its children move.
func (r Report) Story() Story {
	s := Story{Moves: r.Moves(), mechApp: map[string]bool{}, mechRes: map[string]bool{},
		Mechanical: MechanicalCounts{Lines: map[string]int{}}}
	for _, g := range r.ordered() {
		var moves []Move
		for _, a := range g.Apps {
			moves = append(moves, a.Moves...)
		}
		rep := moveReplacer(moves)
		if rep == nil {
			continue
		}
		for _, a := range g.Apps {
			s.classify(a, rep)
		}
	}
	return s
}

func (s *Story) classify(a App, rep *strings.Replacer) {
	if a.Status != StatusChanged {
		return
	}
	all, some := true, false
	for _, rd := range changedResources(a) {
		counts, ok := mechanicalLines(rd, rep)
		if !ok {
			all = false
			continue
		}
		some = true
		s.mechRes[memberKey(a, rd)] = true
		s.Mechanical.Resources++
		for k, n := range counts {
			s.Mechanical.Lines[k] += n
		}
	}
	if some {
		s.Mechanical.Touched++
	}
	// an app with a warning or a source not rendered has something to say
	if all && some && len(a.Warnings) == 0 && a.NotRendered == "" {
		s.mechApp[a.Env+"/"+a.Name] = true
		s.Mechanical.Apps++
	}
}

// MechanicalApp reports whether every change of the app follows from its
// version moves: it is told only in the folded part.
func (s Story) MechanicalApp(a App) bool { return s.mechApp[a.Env+"/"+a.Name] }

// MechanicalResource reports whether the resource's change follows from
// its app's version moves.
func (s Story) MechanicalResource(a App, rd diff.ResourceDiff) bool {
	return s.mechRes[memberKey(a, rd)]
}

// mechanicalGroup reports whether every occurrence of a shared change
// follows from its app's moves.
func (s Story) mechanicalGroup(gr *group) bool {
	for _, m := range gr.Members {
		if !s.mechRes[memberKey(m.App, m.Res)] {
			return false
		}
	}
	return true
}

// Any reports whether anything follows from the moves.
func (c MechanicalCounts) Any() bool { return c.Resources > 0 }

// Touched reports whether some change of the app follows from the moves.
func (s Story) Touched(a App) bool {
	for _, rd := range changedResources(a) {
		if s.mechRes[memberKey(a, rd)] {
			return true
		}
	}
	return false
}
