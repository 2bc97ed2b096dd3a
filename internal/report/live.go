package report

import "github.com/gitops-promote/gitops-promote/internal/diff"

// Live actions. A sync of the head revision would create, update or prune
// an object, or leave one no longer rendered in place (remain: the app
// does not prune, or the object opts out). Drift compares the base
// revision's render with the cluster: modified, missing from the cluster, or extra (managed
// by the app, only in the cluster).
const (
	LiveCreate   = "create"
	LiveUpdate   = "update"
	LivePrune    = "prune"
	LiveRemain   = "remain"
	LiveModified = "modified"
	LiveMissing  = "missing"
	LiveExtra    = "extra"
)

// Live is one app compared with its env's cluster (manifestdiff --live).
type Live struct {
	// Error says why the app was not compared (it failed to render, part
	// of it was not rendered, its ignoreDifferences do not compile).
	Error string
	// Changes are what a sync of the head revision would do: hunks from
	// the live object (a/) to what the dry run predicts (b/).
	Changes []LiveResource
	// Drift is where the cluster no longer matches the base revision:
	// hunks from its render, as the dry run predicts it (a/), to the live object (b/).
	Drift []LiveResource
	// Findings are the objects that could not be compared.
	Findings []LiveFinding
}

// LiveResource is one object's live comparison, redacted like every diff.
type LiveResource struct {
	diff.ResourceDiff
	Action string
}

// LiveFinding is an object (or a kind, for prune detection) the live diff
// could not compare: reason forbidden, unknown-kind or rejected.
type LiveFinding struct {
	APIVersion, Kind, Namespace, Name string
	Reason, Message                   string
}

// LiveEnv is one env's cluster in a live diff.
type LiveEnv struct {
	Env string
	// Cluster names the kubeconfig context and server, never a credential.
	Cluster string
	// Error is why the env could not be compared at all (unreachable).
	Error string
	// Findings are kinds that could not be listed: objects of those kinds
	// that a sync would prune cannot be seen.
	Findings []LiveFinding
}

// LiveCounts sums the live diff over all apps.
type LiveCounts struct {
	Create   int `json:"create"`
	Update   int `json:"update"`
	Prune    int `json:"prune"`
	Remain   int `json:"remain"`
	Drift    int `json:"drift"`
	Findings int `json:"findings"`
	// Errors counts envs that could not be compared and apps that were
	// not.
	Errors int `json:"errors"`
}

func (c *LiveCounts) add(r Report) {
	for _, e := range r.LiveEnvs {
		c.Findings += len(e.Findings)
		if e.Error != "" {
			c.Errors++
		}
	}
	for _, a := range r.Apps {
		if a.Live == nil {
			continue
		}
		if a.Live.Error != "" {
			c.Errors++
		}
		c.Findings += len(a.Live.Findings)
		c.Drift += len(a.Live.Drift)
		for _, ch := range a.Live.Changes {
			switch ch.Action {
			case LiveCreate:
				c.Create++
			case LiveUpdate:
				c.Update++
			case LivePrune:
				c.Prune++
			case LiveRemain:
				c.Remain++
			}
		}
	}
}

// anyLive is true when the report holds a live diff.
func (r Report) anyLive() bool { return len(r.LiveEnvs) > 0 }

// jsonLive is an app's "live" object:
//
//	{"error": "why it was not compared (if so)",
//	 "changes": [{resource fields..., "action": "create|update|prune|remain"}],
//	 "drift": [{resource fields..., "action": "modified|missing|extra"}],
//	 "findings": [{"apiVersion", "kind", "namespace", "name", "reason": "forbidden|unknown-kind|rejected", "message"}]}
//
// A change's diff runs from the live object (a/) to what the dry run
// predicts (b/); a drift's from the base revision's render (a/) to the
// live object (b/).
type jsonLive struct {
	Error    string             `json:"error,omitempty"`
	Changes  []jsonLiveResource `json:"changes"`
	Drift    []jsonLiveResource `json:"drift"`
	Findings []jsonLiveFinding  `json:"findings"`
}

type jsonLiveResource struct {
	jsonResource
	Action string `json:"action"`
}

type jsonLiveFinding struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Reason     string `json:"reason"`
	Message    string `json:"message"`
}

// jsonLiveEnv is one entry of "liveEnvs": {"env", "cluster", "error" (the
// env could not be compared), "findings" (kinds that could not be listed
// for prune detection)}.
type jsonLiveEnv struct {
	Env      string            `json:"env"`
	Cluster  string            `json:"cluster"`
	Error    string            `json:"error,omitempty"`
	Findings []jsonLiveFinding `json:"findings"`
}

func toJSONLive(l *Live) *jsonLive {
	if l == nil {
		return nil
	}
	out := &jsonLive{Error: l.Error, Changes: []jsonLiveResource{}, Drift: []jsonLiveResource{}, Findings: toJSONFindings(l.Findings)}
	for _, c := range l.Changes {
		out.Changes = append(out.Changes, jsonLiveResource{toJSONResource(c.ResourceDiff), c.Action})
	}
	for _, c := range l.Drift {
		out.Drift = append(out.Drift, jsonLiveResource{toJSONResource(c.ResourceDiff), c.Action})
	}
	return out
}

func toJSONFindings(fs []LiveFinding) []jsonLiveFinding {
	out := []jsonLiveFinding{}
	for _, f := range fs {
		out = append(out, jsonLiveFinding(f))
	}
	return out
}

func toJSONLiveEnvs(envs []LiveEnv) []jsonLiveEnv {
	var out []jsonLiveEnv
	for _, e := range envs {
		out = append(out, jsonLiveEnv{Env: e.Env, Cluster: e.Cluster, Error: e.Error, Findings: toJSONFindings(e.Findings)})
	}
	return out
}

// Changed is true when the report shows a change: an app added, removed
// or changed, or, with --live, an object a sync would create, update or
// prune, or drift.
func (s Summary) Changed() bool {
	if s.anyChange() {
		return true
	}
	return s.Live != nil && s.Live.Create+s.Live.Update+s.Live.Prune+s.Live.Drift > 0
}
