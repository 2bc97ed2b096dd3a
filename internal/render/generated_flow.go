package render

import (
	"strings"
	"text/template/parse"
)

// kind is what an expression may hold, as a set: plain data (values,
// strings, numbers: fmt prints them the same on every render), the
// render context itself ($ of a file, which holds pointers), a pointer
// whose fields are plain data (semver's *Version), or anything.
type kind uint8

const (
	plain kind = 1 << iota
	rootCtx
	pointer
	anything
	unsafe = rootCtx | pointer | anything // may hold a pointer fmt would print
)

// pointerResults are the pure functions whose result is a fresh pointer
// (TestPureFunctionResults checks every other result holds none).
var pointerResults = setOf("semver")

// chartScalars are .Chart's fields that hold no pointer.
var chartScalars = setOf("Name", "Home", "Sources", "Version", "Description", "Keywords", "Icon", "APIVersion",
	"Condition", "Tags", "AppVersion", "Deprecated", "Annotations", "KubeVersion", "Type")

// mutators store an argument inside another (set's value, merge's
// sources): a pointer stored in plain data would then print.
var mutators = setOf("set", "merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite")

// analysis runs the flow analysis over a chart's templates until what
// each named template receives stops growing.
type analysis struct {
	defines map[string][]*parse.Tree
	defDot  map[string]kind // what each named template may be called with
	fileDot kind            // what file templates may be called with (root, or more through include of a file)
	changed bool
	failed  bool
}

func (a *analysis) run(roots []*parse.Tree) bool {
	a.fileDot = rootCtx
	for range 32 {
		a.changed = false
		for _, t := range roots {
			a.tree(t, a.fileDot)
		}
		for name, dot := range a.defDot {
			for _, t := range a.defines[name] {
				a.tree(t, dot)
			}
		}
		if a.failed {
			return false
		}
		if !a.changed {
			return true
		}
	}
	return false // no fixpoint in reach: render twice
}

// scope is one template body's variables ($ is the dot it was called with).
type scope struct {
	a    *analysis
	vars map[string]kind
}

func (a *analysis) tree(t *parse.Tree, dot kind) {
	s := &scope{a: a, vars: map[string]kind{"$": dot}}
	// variables may be reassigned later in the body: walk until they settle
	for range 8 {
		before := len(s.vars)
		sum := s.sum()
		s.list(t.Root, dot)
		if len(s.vars) == before && s.sum() == sum {
			return
		}
	}
	a.failed = true
}

func (s *scope) sum() int {
	n := 0
	for _, k := range s.vars {
		n += int(k)
	}
	return n
}

func (s *scope) list(l *parse.ListNode, dot kind) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		s.node(n, dot)
	}
}

func (s *scope) node(n parse.Node, dot kind) {
	switch n := n.(type) {
	case *parse.ActionNode:
		k := s.pipe(n.Pipe, dot)
		if len(n.Pipe.Decl) == 0 && k&unsafe != 0 {
			s.a.failed = true // printed with fmt
		}
	case *parse.IfNode:
		s.pipe(n.Pipe, dot)
		s.list(n.List, dot)
		s.list(n.ElseList, dot)
	case *parse.RangeNode:
		k := s.pipeNoDecl(n.Pipe, dot)
		elem := k
		if k&rootCtx != 0 {
			elem = elem&^rootCtx | anything
		}
		switch len(n.Pipe.Decl) {
		case 1:
			s.assign(n.Pipe.Decl[0], elem)
		case 2:
			s.assign(n.Pipe.Decl[0], plain)
			s.assign(n.Pipe.Decl[1], elem)
		}
		s.list(n.List, elem)
		s.list(n.ElseList, dot)
	case *parse.WithNode:
		k := s.pipe(n.Pipe, dot)
		s.list(n.List, k)
		s.list(n.ElseList, dot)
	case *parse.TemplateNode:
		arg := plain // no argument: nil
		if n.Pipe != nil {
			arg = s.pipe(n.Pipe, dot)
		}
		s.a.call(n.Name, arg)
	case *parse.ListNode:
		s.list(n, dot)
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
	default:
		s.a.failed = true // a node this analysis does not know
	}
}

// call records that the named template is executed with arg as its dot.
func (a *analysis) call(name string, arg kind) {
	if _, ok := a.defines[name]; !ok {
		// a file template by its name, or a template that does not exist
		// (the render fails): file templates get arg too
		if a.fileDot|arg != a.fileDot {
			a.fileDot |= arg
			a.changed = true
		}
		return
	}
	if a.defDot[name]|arg != a.defDot[name] || a.defDot[name] == 0 {
		a.defDot[name] |= arg
		a.changed = true
	}
}

// callAll is an include of a name known only at render time.
func (a *analysis) callAll(arg kind) {
	for name := range a.defines {
		a.call(name, arg)
	}
	a.call("", arg)
}

func (s *scope) assign(v *parse.VariableNode, k kind) {
	if len(v.Ident) == 0 {
		return
	}
	s.vars[v.Ident[0]] |= k
}

func (s *scope) pipe(p *parse.PipeNode, dot kind) kind {
	k := s.pipeNoDecl(p, dot)
	for _, v := range p.Decl {
		s.assign(v, k)
	}
	return k
}

func (s *scope) pipeNoDecl(p *parse.PipeNode, dot kind) kind {
	if p == nil {
		return plain
	}
	var k kind
	for i, c := range p.Cmds {
		if i == 0 {
			k = s.command(c, dot, 0, false)
		} else {
			k = s.command(c, dot, k, true)
		}
	}
	return k
}

// command evaluates one command of a pipeline; piped is the previous
// command's result, passed as the last argument.
func (s *scope) command(c *parse.CommandNode, dot, piped kind, hasPiped bool) kind {
	if len(c.Args) == 0 {
		return plain
	}
	id, ok := c.Args[0].(*parse.IdentifierNode)
	if !ok {
		k := s.arg(c.Args[0], dot)
		for _, a := range c.Args[1:] {
			s.arg(a, dot) // method arguments
		}
		return k
	}
	var args []kind
	for _, a := range c.Args[1:] {
		args = append(args, s.arg(a, dot))
	}
	if hasPiped {
		args = append(args, piped)
	}
	return s.function(id.Ident, c.Args[1:], args)
}

func (s *scope) function(name string, raw []parse.Node, args []kind) kind {
	if !pureFuncs[name] {
		s.a.failed = true
		return anything
	}
	if name == "include" {
		arg := plain
		if len(args) > 1 {
			arg = args[1]
		}
		if len(raw) > 0 {
			if lit, ok := raw[0].(*parse.StringNode); ok {
				s.a.call(lit.Text, arg)
				return plain
			}
		}
		s.a.callAll(arg)
		return plain
	}
	if name == "printf" && !literalFormat(raw) {
		s.a.failed = true // %p, or a format known only at render time
	}
	var all kind
	for i, k := range args {
		all |= k
		if mutators[name] && i > 0 && k&unsafe != 0 {
			s.a.failed = true // stores a pointer where plain data was
		}
	}
	switch {
	case passThrough[name]:
		if all&rootCtx != 0 {
			all = all&^rootCtx | anything // a part of the context, no longer the context
		}
		return all | plain
	case opaqueOK[name]:
		return plain
	case pointerResults[name]:
		if all&unsafe != 0 {
			s.a.failed = true
		}
		return pointer
	}
	if all&unsafe != 0 {
		s.a.failed = true // formats its arguments with fmt
	}
	return plain
}

func (s *scope) arg(n parse.Node, dot kind) kind {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return fields(dot, n.Ident)
	case *parse.VariableNode:
		k, ok := s.vars[n.Ident[0]]
		if !ok {
			k = anything
		}
		return fields(k, n.Ident[1:])
	case *parse.ChainNode:
		return fields(s.arg(n.Node, dot), n.Field)
	case *parse.PipeNode:
		return s.pipe(n, dot)
	case *parse.IdentifierNode:
		return s.function(n.Ident, nil, nil) // a function called without arguments
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return plain
	}
	s.a.failed = true
	return anything
}

// literalFormat says whether printf's format (its first argument) is a
// string literal whose verbs print plain data the same on every render:
// all but %p, which prints an address (flags, width, precision and an
// argument index may stand between % and the verb).
func literalFormat(raw []parse.Node) bool {
	if len(raw) == 0 {
		return false
	}
	lit, ok := raw[0].(*parse.StringNode)
	if !ok {
		return false
	}
	f := lit.Text
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("+-# 0123456789.*[]", f[i]) >= 0 {
			i++
		}
		if i < len(f) && f[i] == 'p' {
			return false
		}
	}
	return true
}

// fields is what k.f1.f2... may hold.
func fields(k kind, f []string) kind {
	if len(f) == 0 {
		return k
	}
	var out kind
	if k&(plain|pointer) != 0 {
		out |= plain // a pointer's fields and methods give plain data
	}
	if k&anything != 0 {
		out |= anything
	}
	if k&rootCtx != 0 {
		switch f[0] {
		case "Values", "Release", "Template", "Files":
			out |= plain
		case "Capabilities":
			if len(f) > 1 {
				out |= plain
			} else {
				out |= anything
			}
		case "Chart":
			if len(f) > 1 && chartScalars[f[1]] {
				out |= plain
			} else {
				out |= anything
			}
		default: // .Subcharts, and anything a later Helm adds
			out |= anything
		}
	}
	return out
}
