package ordering

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// rollingSync resolves each RollingSync step against the generated apps'
// labels; nil when the ApplicationSet uses another strategy or none.
//
// Like Argo CD's applicationset controller, a step selects an app when all
// its matchExpressions match (a step with none selects every app), and an
// app selected by two steps is listed in both: Argo CD warns and syncs it
// with the first.
func rollingSync(s *rawStrategy, apps []GeneratedApp) *RollingSync {
	if s == nil || s.Type != "RollingSync" {
		return nil
	}
	rs := &RollingSync{Steps: []Step{}}
	for _, raw := range s.RollingSync.Steps {
		st := Step{MatchExpressions: raw.MatchExpressions, Apps: []string{}}
		if st.MatchExpressions == nil {
			st.MatchExpressions = []MatchExpression{}
		}
		if raw.MaxUpdate.Kind == yaml.ScalarNode && raw.MaxUpdate.Tag != "!!null" {
			st.MaxUpdate = raw.MaxUpdate.Value
		}
		for _, e := range st.MatchExpressions {
			if err := e.validate(); err != nil {
				st.Error = err.Error()
				break
			}
		}
		if st.Error == "" {
			for _, a := range apps {
				if selects(st.MatchExpressions, a.Labels) {
					st.Apps = append(st.Apps, a.Name)
				}
			}
		}
		rs.Steps = append(rs.Steps, st)
	}
	return rs
}

func selects(exprs []MatchExpression, labels map[string]string) bool {
	for _, e := range exprs {
		if !e.Matches(labels) {
			return false
		}
	}
	return true
}

// validate applies the Kubernetes label-selector rules Argo CD hands the
// expression to: In and NotIn need values, Exists and DoesNotExist take
// none, Gt and Lt take one integer. Operators are matched
// case-insensitively because Argo CD lowercases them.
func (e MatchExpression) validate() error {
	if e.Key == "" {
		return fmt.Errorf("matchExpression without key")
	}
	switch strings.ToLower(e.Operator) {
	case "in", "notin":
		if len(e.Values) == 0 {
			return fmt.Errorf("%s %s needs at least one value", e.Key, e.Operator)
		}
	case "exists", "doesnotexist":
		if len(e.Values) != 0 {
			return fmt.Errorf("%s %s takes no values", e.Key, e.Operator)
		}
	case "gt", "lt":
		if len(e.Values) != 1 {
			return fmt.Errorf("%s %s needs exactly one value", e.Key, e.Operator)
		}
		if _, err := strconv.ParseInt(e.Values[0], 10, 64); err != nil {
			return fmt.Errorf("%s %s: value %q is not an integer", e.Key, e.Operator, e.Values[0])
		}
	default:
		return fmt.Errorf("%s: unsupported operator %q (want In, NotIn, Exists, DoesNotExist, Gt or Lt)", e.Key, e.Operator)
	}
	return nil
}

// Matches reports whether labels satisfy the expression, with Kubernetes
// semantics: NotIn and DoesNotExist match an absent key, Gt and Lt need an
// integer label value. An invalid expression matches nothing.
func (e MatchExpression) Matches(labels map[string]string) bool {
	if e.validate() != nil {
		return false
	}
	v, ok := labels[e.Key]
	switch strings.ToLower(e.Operator) {
	case "in":
		return ok && slices.Contains(e.Values, v)
	case "notin":
		return !ok || !slices.Contains(e.Values, v)
	case "exists":
		return ok
	case "doesnotexist":
		return !ok
	}
	have, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		return false
	}
	want, _ := strconv.ParseInt(e.Values[0], 10, 64)
	if strings.EqualFold(e.Operator, "gt") {
		return have > want
	}
	return have < want
}

// String renders the expression compactly: "tier In (a, b)".
func (e MatchExpression) String() string {
	if len(e.Values) == 0 {
		return e.Key + " " + e.Operator
	}
	return fmt.Sprintf("%s %s (%s)", e.Key, e.Operator, strings.Join(e.Values, ", "))
}
