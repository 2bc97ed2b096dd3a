package argo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/blockyaml"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// Discover reads every Application and ApplicationSet document of env from
// the files matched by cfg.ManifestGlobs(env), expands the ApplicationSets
// against fsys and returns the apps sorted by name. Documents of other
// kinds are ignored; a document that does not parse is an error naming
// file:line.
//
// A file that does not parse as YAML fails only itself: its apps are
// unknowable, so it is one Failure named after the file (with the line
// of the parse error), and every other file is still discovered; the
// apps are returned with a *DiscoveryError.
func Discover(fsys fs.FS, cfg *config.Config, env string) ([]App, error) {
	return DiscoverWith(fsys, cfg, env, DiscoverOptions{})
}

// DiscoverOptions is what discovery may use beyond the revision's tree.
type DiscoverOptions struct {
	// Repos opens another repository at a revision, for git generators
	// of other repositories; nil makes those generators errors.
	Repos RepoOpener
	// Emit, when set, takes each app as soon as it is generated, in the
	// order of files and documents, and the apps are not returned: a
	// caller that keeps only a little of each app never holds an env's
	// apps, nor a whole ApplicationSet's. The apps are exactly those
	// returned without Emit when discovery reports no failure. When it
	// reports one, some of what was emitted may not stand: an
	// ApplicationSet that fails part way has emitted its first apps, and
	// an app whose name a later document repeats has been emitted
	// (Failure.Duplicate). Such a caller discovers the env again without
	// Emit.
	Emit func(App)
}

// RepoOpener returns the tree of repoURL at revision (a branch, tag,
// commit...), the same tree for the same arguments within one run.
type RepoOpener func(repoURL, revision string) (fs.FS, error)

// DiscoverWith is Discover with options.
func DiscoverWith(fsys fs.FS, cfg *config.Config, env string, opt DiscoverOptions) ([]App, error) {
	ms, bad, err := readManifests(fsys, cfg, env, true)
	if err != nil {
		return nil, err
	}
	apps, err := discoverManifests(fsys, cfg, env, ms, opt)
	if len(bad) == 0 {
		return apps, err
	}
	var derr *DiscoveryError
	if errors.As(err, &derr) {
		bad = append(bad, derr.Failures...)
	} else if err != nil {
		return nil, err
	}
	return apps, &DiscoveryError{Env: env, Failures: bad}
}

// Manifest is one manifest file split into its YAML documents, nil for an
// empty one so that indexes match what a reader counts in the file. The
// nodes may lack comments (see splitDocs); nothing here reads them.
type Manifest struct {
	File string
	Docs []*yaml.Node
	// dups holds, by document index, the duplicate key of a document
	// that parsed but repeats a key (tolerant reads only): discovery
	// fails that document's apps and no other.
	dups map[int]*DuplicateKeyError
}

// ReadManifests reads and parses env's manifest files, for Discover and
// for callers that also read the documents themselves: parsing is most
// of what discovery costs, so it is done once. The documents are shared
// and must not be modified. A document that repeats a mapping key is an
// error (a *DuplicateKeyError naming file:line): whoever reads the file
// next (promote's ordering rules, check) must not read a value the
// cluster may not get.
func ReadManifests(fsys fs.FS, cfg *config.Config, env string) ([]Manifest, error) {
	ms, _, err := readManifests(fsys, cfg, env, false)
	return ms, err
}

// readManifests reads env's manifest files. With tolerant, a file that
// does not parse is returned as a Failure (Name: the file) instead of
// failing the whole env.
func readManifests(fsys fs.FS, cfg *config.Config, env string, tolerant bool) ([]Manifest, []Failure, error) {
	if err := cfg.CheckEnv(env); err != nil {
		return nil, nil, err
	}
	files, err := cfg.ManifestFiles(fsys, env)
	if err != nil {
		return nil, nil, fmt.Errorf("env %s: %w", env, err)
	}
	out := make([]Manifest, 0, len(files))
	var bad []Failure
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, fmt.Errorf("env %s: %s: %w", env, name, err)
		}
		docs, dups, err := splitDocs(name, data)
		if len(dups) > 0 && err == nil && !tolerant {
			return nil, nil, fmt.Errorf("env %s: %w", env, firstDup(dups))
		}
		if err != nil {
			err = fmt.Errorf("env %s: %w", env, posError(name, 0, err))
			if !tolerant {
				return nil, nil, err
			}
			bad = append(bad, Failure{Name: name, File: name, Line: errorLine(err), Err: err, WholeFile: true})
			continue
		}
		out = append(out, Manifest{File: name, Docs: docs, dups: dups})
	}
	return out, bad, nil
}

// firstDup is the duplicate of the lowest document index.
func firstDup(dups map[int]*DuplicateKeyError) *DuplicateKeyError {
	var first *DuplicateKeyError
	at := -1
	for i, d := range dups {
		if at < 0 || i < at {
			first, at = d, i
		}
	}
	return first
}

// errorLine is the line posError put after "file:", 0 if none.
func errorLine(err error) int {
	if m := fileLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

var fileLineRE = regexp.MustCompile(`^env [^:]+: [^:]+:(\d+): `)

// DiscoverManifests is Discover over manifests ReadManifests returned.
//
// A document that cannot become apps (an Application whose path does not
// exist, an ApplicationSet whose template fails or whose generator cannot
// be expanded offline) fails only its own apps: the others are returned
// with a *DiscoveryError listing the failures. Callers that must refuse
// any broken input treat that as any error; manifestdiff reports each
// failure as its app's error and goes on.
func DiscoverManifests(fsys fs.FS, cfg *config.Config, env string, ms []Manifest) ([]App, error) {
	return discoverManifests(fsys, cfg, env, ms, DiscoverOptions{})
}

func discoverManifests(fsys fs.FS, cfg *config.Config, env string, ms []Manifest, opt DiscoverOptions) ([]App, error) {
	d := &discovery{fsys: fsys, cfg: cfg, env: env, seen: map[string]position{}, globs: map[string][]string{},
		dups: map[string]*Failure{}, repos: opt.Repos, emit: opt.Emit}
	for _, m := range ms {
		d.file(m)
	}
	d.dropDuplicates()
	sort.Slice(d.apps, func(i, j int) bool { return d.apps[i].Name < d.apps[j].Name })
	if len(d.failures) > 0 {
		return d.apps, &DiscoveryError{Env: env, Failures: d.failures}
	}
	return d.apps, nil
}

// Failure is one document discovery could not turn into apps.
type Failure struct {
	// Name is the Application's name, or the ApplicationSet's for an
	// ApplicationSet (whose apps all fail with it, as in Argo CD's
	// controller, which applies none of them); file:line when the
	// document names nothing.
	Name   string
	AppSet bool
	// WholeFile marks a file that does not parse: Name is the file, and
	// the apps it held at another revision are unknowable here.
	WholeFile bool
	// Duplicate marks a name two documents generate: Name is the app's,
	// and no app of that name is returned (an Emit caller drops the one
	// it was given).
	Duplicate bool
	File      string
	Line      int
	Err       error // names file:line and the reason
}

// DiscoveryError lists the documents of an env that failed; the apps of
// every other document were discovered.
type DiscoveryError struct {
	Env      string
	Failures []Failure
}

func (e *DiscoveryError) Error() string {
	msgs := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		msgs[i] = f.Err.Error()
	}
	return strings.Join(msgs, "; ")
}

type discovery struct {
	fsys fs.FS
	cfg  *config.Config
	env  string
	apps []App
	emit func(App) // DiscoverOptions.Emit; apps is not used when set
	// seen is where each name was first generated: Argo CD refuses two
	// apps of one name.
	seen map[string]position
	// globs caches git directory generator matches: every ApplicationSet
	// of an env usually asks for the same pattern.
	globs    map[string][]string
	failures []Failure
	// dups are the names two documents generate: Argo CD cannot hold two
	// Applications of one name in one namespace, so every app of such a
	// name fails, and only those.
	dups  map[string]*Failure
	repos RepoOpener
}

func (d *discovery) file(m Manifest) {
	name := m.File
	for i, doc := range m.Docs {
		if dup := m.dups[i]; dup != nil {
			// Argo CD's repo-server and kubectl apply keep the last value
			// without a word; rendering either one would be a guess.
			d.fail(name, doc, fmt.Errorf("%w (Argo CD and kubectl apply would silently keep the last one)", dup))
			continue
		}
		apps, err := d.document(name, i, doc)
		if err != nil {
			d.fail(name, doc, err)
			continue
		}
		for _, a := range apps {
			d.accept(a)
		}
	}
}

// accept takes an app a document generated: the first of its name is
// kept (emitted, or added to apps), and a later one fails the name.
func (d *discovery) accept(a App) {
	prev, dup := d.seen[a.Name]
	if !dup {
		d.seen[a.Name] = position{a.File, a.Line}
		if d.emit != nil {
			d.emit(a)
		} else {
			d.apps = append(d.apps, a)
		}
		return
	}
	err := posError(a.File, a.Line, fmt.Errorf("app %s: name already used by %s:%d", a.Name, prev.File, prev.Line))
	if f := d.dups[a.Name]; f != nil {
		f.Err = fmt.Errorf("%w; %s", f.Err, err)
		return
	}
	d.dups[a.Name] = &Failure{Name: a.Name, File: a.File, Line: a.Line, Duplicate: true,
		Err: fmt.Errorf("env %s: %w", d.env, err)}
}

// position is where a document generated an app.
type position struct {
	File string
	Line int
}

// dropDuplicates removes the apps of duplicated names and records one
// failure per name.
func (d *discovery) dropDuplicates() {
	if len(d.dups) == 0 {
		return
	}
	kept := d.apps[:0]
	for _, a := range d.apps {
		if d.dups[a.Name] == nil {
			kept = append(kept, a)
		}
	}
	d.apps = kept
	names := make([]string, 0, len(d.dups))
	for n := range d.dups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d.failures = append(d.failures, *d.dups[n])
	}
}

// fail records a document that produced no apps.
func (d *discovery) fail(file string, doc *yaml.Node, err error) {
	f := Failure{File: file, Line: doc.Line, Err: fmt.Errorf("env %s: %w", d.env, err),
		Name: scalarAt(doc, "metadata.name"), AppSet: scalarAt(doc, "kind") == "ApplicationSet"}
	if f.Name == "" {
		f.Name = fmt.Sprintf("%s:%d", file, doc.Line)
	}
	d.failures = append(d.failures, f)
}

// splitDocs decodes every YAML document of file's data. Empty documents
// are kept as nil so document indexes match what a reader counts in the
// file. dups holds, by document index, the first repeated mapping key of
// each document that has one: checked here, on the tree just parsed, so
// that every reader of manifests sees it without parsing twice.
//
// The plain block YAML manifests are written in is parsed by blockyaml,
// which builds the nodes yaml.v3 would (comments aside) several times
// faster; anything else by yaml.v3 itself.
func splitDocs(file string, data []byte) (docs []*yaml.Node, dups map[int]*DuplicateKeyError, err error) {
	docs, ok := blockyaml.Parse(data)
	if !ok {
		if docs, err = decodeDocs(data); err != nil {
			return nil, nil, err
		}
	}
	for i, n := range docs {
		if n == nil {
			continue
		}
		if k, first := yamlnode.DuplicateKey(n); k != nil {
			if dups == nil {
				dups = map[int]*DuplicateKeyError{}
			}
			dups[i] = &DuplicateKeyError{File: file, Key: k.Value, Line: k.Line, First: first}
		}
	}
	return docs, dups, nil
}

// decodeDocs parses every document of data with yaml.v3.
func decodeDocs(data []byte) (docs []*yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(n.Content) == 0 {
			docs = append(docs, nil)
			continue
		}
		docs = append(docs, n.Content[0])
	}
}

// document turns one decoded document into apps; nil for non-Argo kinds.
func (d *discovery) document(file string, idx int, doc *yaml.Node) ([]App, error) {
	if doc == nil || doc.Kind != yaml.MappingNode {
		return nil, nil
	}
	apiVersion, kind := scalarAt(doc, "apiVersion"), scalarAt(doc, "kind")
	if !strings.HasPrefix(apiVersion, "argoproj.io/") || (kind != "Application" && kind != "ApplicationSet") {
		return nil, nil
	}
	at := origin{env: d.env, file: file, doc: idx, line: doc.Line}
	doc, err := normalizeAliases(doc)
	if err != nil {
		return nil, at.errorf(0, "%s", err)
	}
	if kind == "Application" {
		a, err := d.parseApp(at, doc)
		if err != nil {
			return nil, err
		}
		return []App{a}, nil
	}
	return d.expandAppSet(at, doc)
}

// origin is where an app came from, for App fields and error messages.
type origin struct {
	env, file string
	doc, line int
}

func (o origin) errorf(line int, format string, args ...any) error {
	if line == 0 {
		line = o.line
	}
	return posError(o.file, line, fmt.Errorf(format, args...))
}

var lineRE = regexp.MustCompile(`\bline (\d+):\s*`)

// posError renders err as "file:line: message" on one line. A line number
// inside the message (yaml errors and checkKeys carry one) is more precise
// than the caller's fallback, so it wins and moves to the front. Only that
// first "line N:" moves: later ones are part of what the message says
// ("already defined at line 3", a second unmarshal error's own line).
func posError(file string, fallback int, err error) error {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	line := fallback
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	msg = strings.ReplaceAll(msg, "yaml: ", "")
	msg = strings.ReplaceAll(msg, "unmarshal errors:; ", "")
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", file, line, msg)
	}
	return fmt.Errorf("%s: %s", file, msg)
}
