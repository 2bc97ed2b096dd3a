package ordering

import (
	"sort"
	"strings"
)

// node is one app of the dependency graph: an Application, an
// ApplicationSet or a generated app, all addressed by name.
type node struct {
	name, file string
	line, wave int
	deps       []string // as written
}

// graph collects the nodes of one env. An ApplicationSet declares edges
// through its template; a generated app declares its own only when its
// rendered annotation differs from the template's text (a templated
// "dlt-{{path.basename}}-vault"), so a plain template yields one set of
// findings rather than one per generated app.
type graph struct {
	env   string
	nodes map[string]*node
	order []*node // sources of edges, in inventory order
}

func newGraph(e *EnvInventory) *graph {
	g := &graph{env: e.Env, nodes: map[string]*node{}}
	add := func(n *node, source bool) {
		// Argo CD allows an Application and an ApplicationSet to share a
		// name; the Application (listed first below) wins the lookup.
		if _, dup := g.nodes[n.name]; !dup {
			g.nodes[n.name] = n
		}
		if source && len(n.deps) > 0 {
			g.order = append(g.order, n)
		}
	}
	objs := e.Objects()
	sort.SliceStable(objs, func(i, j int) bool { return objs[i].Kind == KindApplication && objs[j].Kind != KindApplication })
	for _, o := range objs {
		add(&node{name: o.Name, file: o.File, line: o.Line, wave: o.Wave, deps: o.DependsOn}, !o.Root)
		for _, a := range o.Apps {
			n := &node{name: a.Name, file: o.File, line: a.Line, wave: a.Wave}
			if a.depsRaw != nil && !sameText(a.depsRaw, o.templateDeps) || templatedDeps(o) {
				n.deps = a.DependsOn
			}
			add(n, true)
		}
	}
	return g
}

func templatedDeps(o *Object) bool { return o.templateDeps != nil && templated(*o.templateDeps) }

// resolve finds a dependency by exact name, else by name plus the env
// suffix, so a template shared by every env may write "dlt-backup".
func (g *graph) resolve(name string) *node {
	if n, ok := g.nodes[name]; ok {
		return n
	}
	return g.nodes[name+"-"+g.env]
}

// dependencyFindings reports edges to unknown apps or to apps that do not
// sync strictly earlier, then every cycle among the resolved edges.
func dependencyFindings(e *EnvInventory) []Finding {
	g := newGraph(e)
	var out []Finding
	for _, n := range g.order {
		for _, d := range n.deps {
			t := g.resolve(d)
			switch {
			case t == nil:
				out = append(out, finding(RuleDependsOnOrder, e.Env, n.file, n.line, n.name,
					"depends on %s, which is no Application, ApplicationSet or generated app in env %s", d, e.Env))
			case t.wave >= n.wave:
				out = append(out, finding(RuleDependsOnOrder, e.Env, n.file, n.line, n.name,
					"depends on %s (wave %d), which must be in a wave earlier than %d", t.name, t.wave, n.wave))
			}
		}
	}
	for _, c := range g.cycles() {
		first := g.nodes[c[0]]
		out = append(out, finding(RuleDependsOnCycle, e.Env, first.file, first.line, first.name,
			"dependency cycle %s", strings.Join(c, " -> ")))
	}
	return out
}

// edges returns the resolved, sorted, duplicate-free targets of n.
func (g *graph) edges(n *node) []string {
	set := map[string]bool{}
	for _, d := range n.deps {
		if t := g.resolve(d); t != nil {
			set[t.name] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// cycles finds the strongly connected components (Tarjan) and prints one
// cycle through each, starting at its smallest name: "a -> b -> a".
func (g *graph) cycles() [][]string {
	names := make([]string, 0, len(g.nodes))
	for name := range g.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	t := &tarjan{g: g, index: map[string]int{}, low: map[string]int{}, on: map[string]bool{}}
	for _, name := range names {
		if _, seen := t.index[name]; !seen {
			t.visit(name)
		}
	}
	var out [][]string
	for _, scc := range t.sccs {
		sort.Strings(scc)
		if c := g.cycleFrom(scc[0], scc); c != nil {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

type tarjan struct {
	g     *graph
	next  int
	index map[string]int
	low   map[string]int
	on    map[string]bool
	stack []string
	sccs  [][]string
}

func (t *tarjan) visit(v string) {
	t.index[v], t.low[v] = t.next, t.next
	t.next++
	t.stack = append(t.stack, v)
	t.on[v] = true
	for _, w := range t.g.edges(t.g.nodes[v]) {
		if _, seen := t.index[w]; !seen {
			t.visit(w)
			t.low[v] = min(t.low[v], t.low[w])
		} else if t.on[w] {
			t.low[v] = min(t.low[v], t.index[w])
		}
	}
	if t.low[v] != t.index[v] {
		return
	}
	var scc []string
	for {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.on[w] = false
		scc = append(scc, w)
		if w == v {
			break
		}
	}
	t.sccs = append(t.sccs, scc)
}

// cycleFrom returns the shortest path from start back to itself inside
// scc (breadth first, neighbours in name order), nil when there is none:
// a single node without a self edge.
func (g *graph) cycleFrom(start string, scc []string) []string {
	in := map[string]bool{}
	for _, s := range scc {
		in[s] = true
	}
	prev := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.edges(g.nodes[v]) {
			if w == start {
				return append(pathTo(prev, v, start), start)
			}
			if _, seen := prev[w]; in[w] && !seen && w != start {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return nil
}

func pathTo(prev map[string]string, v, start string) []string {
	path := []string{v}
	for v != start {
		v = prev[v]
		path = append(path, v)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
