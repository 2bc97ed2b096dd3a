package ordering

import "testing"

func TestMatchExpression(t *testing.T) {
	labels := map[string]string{"tier": "api", "rank": "7"}
	tests := []struct {
		op     string
		key    string
		values []string
		want   bool
	}{
		{"In", "tier", []string{"api", "web"}, true},
		{"In", "tier", []string{"web"}, false},
		{"In", "zone", []string{"a"}, false},
		{"in", "tier", []string{"api"}, true}, // Argo CD lowercases operators
		{"NotIn", "tier", []string{"web"}, true},
		{"NotIn", "tier", []string{"api"}, false},
		{"NotIn", "zone", []string{"a"}, true}, // an absent key is not in any set
		{"Exists", "tier", nil, true},
		{"Exists", "zone", nil, false},
		{"DoesNotExist", "zone", nil, true},
		{"DoesNotExist", "tier", nil, false},
		{"Gt", "rank", []string{"5"}, true},
		{"Lt", "rank", []string{"5"}, false},
		{"Gt", "tier", []string{"5"}, false}, // not an integer label
		// Malformed expressions match nothing.
		{"In", "tier", nil, false},
		{"Exists", "tier", []string{"api"}, false},
		{"Gt", "rank", []string{"five"}, false},
		{"Like", "tier", []string{"api"}, false},
		{"In", "", []string{"api"}, false},
	}
	for _, tt := range tests {
		e := MatchExpression{Key: tt.key, Operator: tt.op, Values: tt.values}
		if got := e.Matches(labels); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", e, got, tt.want)
		}
	}
}

// A step without matchExpressions selects every app, and an app two steps
// select is listed under both, as Argo CD does.
func TestRollingSyncSelection(t *testing.T) {
	apps := []GeneratedApp{{Name: "a", Labels: map[string]string{"k": "1"}}, {Name: "b"}}
	s := &rawStrategy{Type: "RollingSync"}
	s.RollingSync.Steps = make([]rawStep, 2)
	s.RollingSync.Steps[0].MatchExpressions = []MatchExpression{{Key: "k", Operator: "Exists"}}
	rs := rollingSync(s, apps)
	if got := rs.Steps[0].Apps; len(got) != 1 || got[0] != "a" {
		t.Errorf("step 1 apps = %v", got)
	}
	if got := rs.Steps[1].Apps; len(got) != 2 {
		t.Errorf("step 2 apps = %v", got)
	}
	if rollingSync(&rawStrategy{Type: "AllAtOnce"}, apps) != nil || rollingSync(nil, apps) != nil {
		t.Error("non-RollingSync strategy produced steps")
	}
}
