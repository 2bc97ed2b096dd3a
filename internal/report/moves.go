package report

import (
	"fmt"
	"slices"
	"strings"
)

// Move is one pinned version that the head revision moves for an app: its
// chart's version (the source's targetRevision, or the component's
// chartVersion in the versions file) or another version field of its
// component in the versions file (an image tag). manifestdiff finds them;
// the report uses them to tell the story of a promotion and to recognise
// the changes that only follow from it (mechanical.go).
type Move struct {
	// Component is the versions-file key ("dlt-node.backend"), or the
	// chart's name for a chart no component pins.
	Component string
	// Field is the versions-file field ("chartVersion", "imageTag"), or
	// "targetRevision" for a chart version the versions file does not hold.
	Field    string
	Old, New string
}

// jsonMove is Move as the JSON report writes it.
type jsonMove struct {
	Component string `json:"component"`
	Field     string `json:"field"`
	Old       string `json:"old"`
	New       string `json:"new"`
}

func toJSONMoves(ms []Move) []jsonMove {
	var out []jsonMove
	for _, m := range ms {
		out = append(out, jsonMove(m))
	}
	return out
}

func fromJSONMoves(ms []jsonMove) []Move {
	var out []Move
	for _, m := range ms {
		out = append(out, Move(m))
	}
	return out
}

// EnvMoves is what moved in one env: each component's moves and how many
// apps follow them.
type EnvMoves struct {
	Env        string
	Components []ComponentMoves
}

// ComponentMoves are the moves of one component in one env.
type ComponentMoves struct {
	Component string
	Moves     []Move // chart version first, then the versions file's order
	Apps      int
}

// Moves sums up, env by env in report order, what the head revision moves:
// one entry per component, with the apps that follow it. Envs without a
// move are left out.
func (r Report) Moves() []EnvMoves {
	var out []EnvMoves
	for _, g := range r.ordered() {
		em := EnvMoves{Env: g.Env}
		idx := map[string]int{}
		for _, a := range g.Apps {
			seen := map[string]bool{}
			for _, m := range a.Moves {
				i, ok := idx[m.Component]
				if !ok {
					i = len(em.Components)
					idx[m.Component] = i
					em.Components = append(em.Components, ComponentMoves{Component: m.Component})
				}
				c := &em.Components[i]
				if !slices.Contains(c.Moves, m) {
					c.Moves = append(c.Moves, m)
				}
				if !seen[m.Component] {
					seen[m.Component] = true
					c.Apps++
				}
			}
		}
		if len(em.Components) > 0 {
			out = append(out, em)
		}
	}
	return out
}

// MoveLine is one env's moves in one line of plain text:
// "dlt-node.backend chart 3.0.0 → 3.1.0, imageTag v2.0.0 → v2.1.0 (12 apps); ...".
func MoveLine(em EnvMoves) string {
	parts := make([]string, len(em.Components))
	for i, c := range em.Components {
		fields := make([]string, len(c.Moves))
		for j, m := range c.Moves {
			fields[j] = fmt.Sprintf("%s %s → %s", fieldWord(m.Field), m.Old, m.New)
		}
		parts[i] = fmt.Sprintf("%s %s (%d %s)", c.Component, strings.Join(fields, ", "), c.Apps, plural(c.Apps, "app", "apps"))
	}
	return strings.Join(parts, "; ")
}

// fieldWord names a moved field as a reviewer says it.
func fieldWord(f string) string {
	switch f {
	case "chartVersion", "targetRevision":
		return "chart"
	case "imageTag":
		return "image"
	}
	return f
}
