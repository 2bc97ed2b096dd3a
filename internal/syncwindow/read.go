package syncwindow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Project is an AppProject found in the repository.
type Project struct {
	Name    string    `json:"name"`
	File    string    `json:"file"`
	Line    int       `json:"line"`
	Windows []*Window `json:"windows"`
}

// Finding is a syncWindows entry Argo CD would reject, misread or apply in
// a way its author likely did not mean. Rule is stable for scripts.
type Finding struct {
	Rule    string `json:"rule"`
	Project string `json:"project"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Rule ids.
const (
	RuleInvalid     = "sync-window-invalid"
	RuleNeverFires  = "sync-window-never-fires"
	RuleAlwaysDeny  = "sync-window-always-deny"
	RuleUnreadable  = "sync-window-unreadable"
	RuleDuplicateAP = "app-project-duplicate"
)

// Read parses every AppProject document of files in fsys. A file that does
// not parse is a finding (naming it), not an error: one broken file never
// hides the projects of the others. Files are read in the order given.
func Read(fsys fs.FS, files []string) ([]*Project, []Finding) {
	var out []*Project
	var findings []Finding
	seen := map[string]*Project{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			findings = append(findings, Finding{Rule: RuleUnreadable, File: f, Message: err.Error()})
			continue
		}
		projects, err := Parse(f, data)
		if err != nil {
			findings = append(findings, Finding{Rule: RuleUnreadable, File: f, Message: err.Error()})
		}
		for _, p := range projects {
			if prev := seen[p.Name]; prev != nil {
				findings = append(findings, Finding{Rule: RuleDuplicateAP, Project: p.Name, File: p.File, Line: p.Line,
					Message: fmt.Sprintf("AppProject %s is also defined at %s:%d; the first one is used", p.Name, prev.File, prev.Line)})
				continue
			}
			seen[p.Name] = p
			out = append(out, p)
		}
	}
	return out, findings
}

// Parse reads the AppProject documents of one file. Documents of other
// kinds are skipped. It returns the projects read before a YAML error.
func Parse(file string, data []byte) ([]*Project, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Project
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: %s", file, oneLine(err.Error()))
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode || yamlnode.Scalar(yamlnode.Value(root, "kind")) != "AppProject" {
			continue
		}
		p, err := project(file, root)
		if err != nil {
			return out, err
		}
		out = append(out, p)
	}
}

func project(file string, root *yaml.Node) (*Project, error) {
	p := &Project{Name: yamlnode.Scalar(yamlnode.Value(yamlnode.Value(root, "metadata"), "name")), File: file, Line: root.Line}
	if p.Name == "" {
		return nil, fmt.Errorf("%s:%d: AppProject without metadata.name", file, root.Line)
	}
	list := yamlnode.Value(yamlnode.Value(root, "spec"), "syncWindows")
	if list == nil || list.Tag == "!!null" {
		return p, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: AppProject %s: spec.syncWindows must be a list", file, list.Line, p.Name)
	}
	for _, item := range list.Content {
		w, err := window(file, p.Name, item)
		if err != nil {
			return nil, err
		}
		w.compile()
		p.Windows = append(p.Windows, w)
	}
	return p, nil
}

// window decodes one entry; a wrong YAML shape (a list where a string is
// due) is an error naming file:line, a wrong value is kept for compile.
func window(file, proj string, n *yaml.Node) (*Window, error) {
	w := &Window{Project: proj, File: file, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: AppProject %s: a syncWindows entry must be a mapping", file, n.Line, proj)
	}
	var raw struct {
		Kind         string   `yaml:"kind"`
		Schedule     string   `yaml:"schedule"`
		Duration     string   `yaml:"duration"`
		TimeZone     string   `yaml:"timeZone"`
		Applications []string `yaml:"applications"`
		Namespaces   []string `yaml:"namespaces"`
		Clusters     []string `yaml:"clusters"`
		ManualSync   bool     `yaml:"manualSync"`
		AndOperator  bool     `yaml:"andOperator"`
		Description  string   `yaml:"description"`
	}
	if err := n.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s:%d: AppProject %s: syncWindows entry: %s", file, n.Line, proj, oneLine(err.Error()))
	}
	w.Kind, w.Schedule, w.Duration, w.TimeZone = raw.Kind, raw.Schedule, raw.Duration, raw.TimeZone
	w.Applications, w.Namespaces, w.Clusters = raw.Applications, raw.Namespaces, raw.Clusters
	w.ManualSync, w.AndOperator, w.Description = raw.ManualSync, raw.AndOperator, raw.Description
	w.kindLine = lineOf(n, "kind")
	w.scheduleLine = lineOf(n, "schedule")
	w.durationLine = lineOf(n, "duration")
	w.zoneLine = lineOf(n, "timeZone")
	return w, nil
}

func lineOf(n *yaml.Node, key string) int {
	if v := yamlnode.Value(n, key); v != nil {
		return v.Line
	}
	return 0
}

func oneLine(s string) string {
	out := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\t' || c == ' ' || c == '\r' {
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, c)
	}
	return string(out)
}

// ByName indexes projects by name.
func ByName(ps []*Project) map[string]*Project {
	m := make(map[string]*Project, len(ps))
	for _, p := range ps {
		m[p.Name] = p
	}
	return m
}

// Describe is a one-line summary of a window for tables.
func (w *Window) Describe() string {
	s := w.Kind + " " + strconv.Quote(w.Schedule) + " " + w.Duration
	if w.TimeZone != "" {
		s += " " + w.TimeZone
	}
	return s
}
