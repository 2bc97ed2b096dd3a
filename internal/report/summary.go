package report

import "github.com/gitops-promote/gitops-promote/internal/diff"

// Counts counts apps by status.
type Counts struct {
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	Error     int `json:"error"`
}

func (c *Counts) add(status string) {
	switch status {
	case StatusAdded:
		c.Added++
	case StatusRemoved:
		c.Removed++
	case StatusChanged:
		c.Changed++
	case StatusUnchanged:
		c.Unchanged++
	case StatusError:
		c.Error++
	}
}

// EnvCounts counts one environment's apps by status.
type EnvCounts struct {
	Env string `json:"env"`
	Counts
}

// ResourceCounts counts resources by how they changed, over all apps.
type ResourceCounts struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

// Summary is the report in numbers.
type Summary struct {
	Apps        int            `json:"apps"`
	ByStatus    Counts         `json:"byStatus"`
	ByEnv       []EnvCounts    `json:"byEnv"`
	Resources   ResourceCounts `json:"resources"`
	Errors      int            `json:"errors"`
	NotRendered int            `json:"notRendered"`
	// Live is present with --live only.
	Live *LiveCounts `json:"live,omitempty"`
}

// Summary counts apps by status, overall and per environment (in report
// order), and resources by change.
func (r Report) Summary() Summary {
	s := Summary{ByEnv: []EnvCounts{}}
	for _, g := range r.ordered() {
		ec := EnvCounts{Env: g.Env}
		for _, a := range g.Apps {
			s.Apps++
			s.ByStatus.add(a.Status)
			ec.add(a.Status)
			if a.NotRendered != "" {
				s.NotRendered++
			}
			for _, res := range a.Resources {
				switch res.Status {
				case diff.Added:
					s.Resources.Added++
				case diff.Removed:
					s.Resources.Removed++
				case diff.Changed:
					s.Resources.Changed++
				}
			}
		}
		s.ByEnv = append(s.ByEnv, ec)
	}
	s.Errors = s.ByStatus.Error
	if r.anyLive() {
		s.Live = &LiveCounts{}
		s.Live.add(r)
	}
	return s
}

// anyChange is true when some app was added, removed or changed.
func (s Summary) anyChange() bool {
	return s.ByStatus.Added+s.ByStatus.Removed+s.ByStatus.Changed > 0
}
