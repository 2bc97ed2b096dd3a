package render

import (
	"crypto/sha256"
	"sync"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
	chart4 "helm.sh/helm/v4/pkg/chart"
)

// manifestdiff renders the head revision of an app twice to tell values a
// chart generates on each render (randAlphaNum, now, genCA...) from real
// changes. A chart whose templates cannot produce a different output for
// the same inputs needs no second render: Deterministic says so, from the
// templates alone, and errs on the side of rendering twice. Its rules:
//
//   - every function a template calls is on the pure list below: Helm's
//     and sprig's functions that read no clock, no randomness, no network
//     and no map in its iteration order (keys and values do), and no tpl
//     (it renders text from values, which are not scanned). A function not
//     on the list, from a newer Helm too, fails the chart;
//   - no template prints a value that holds a pointer: Go's fmt prints a
//     nested pointer as its address, which differs between renders. Helm's
//     render context holds pointers (.Capabilities, .Chart's Maintainers
//     and Dependencies, .Subcharts); a flow analysis follows what each
//     expression may hold (plain data, the render context, anything) into
//     variables, range, with, and the named templates include and template
//     call, and fails the chart when something other than plain data may
//     reach fmt (an action's output or a function that formats it).
//     semver's result is such a pointer: only its fields are plain;
//   - printf's format is a literal without a %p verb: %p prints the
//     address of plain data too (a map, a list);
//   - every template Helm renders, the chart's and its subcharts' (library
//     charts, packaged or not, at any depth), parses; the templates are
//     taken from Helm's own loaders, never from a walk of the archive.
//
// TestDeterministicChartsRenderTheSame renders every chart the scanner
// passes twice and compares the bytes; FuzzDeterministic does the same for
// generated templates; TestGeneratingChartsRenderTwice renders real charts
// that generate, in every place a template can sit, and requires the
// scan to send each of them to the second render.

// pureFuncs are the template functions that return the same result for
// the same arguments and never format their arguments with fmt, or do so
// only for plain data (see formatsArgs).
var pureFuncs = setOf(
	// text/template builtins (call is left out: it calls any function value)
	"and", "or", "not", "len", "index", "slice", "print", "printf", "println", "html", "js", "urlquery",
	"eq", "ne", "lt", "le", "gt", "ge",
	// Helm
	"include", "required", "fail", "toToml", "mustToToml", "fromToml", "toYaml", "mustToYaml", "toYamlPretty",
	"fromYaml", "fromYamlArray", "toJson", "mustToJson", "fromJson", "fromJsonArray",
	"mustToDuration", "durationSeconds", "durationMilliseconds", "durationMicroseconds", "durationNanoseconds",
	"durationMinutes", "durationHours", "durationDays", "durationWeeks", "durationRoundTo", "durationTruncateTo",
	// sprig: strings
	"hello", "abbrev", "abbrevboth", "trunc", "trim", "upper", "lower", "title", "untitle", "substr", "repeat", "trimall",
	"trimAll", "trimSuffix", "trimPrefix", "nospace", "initials", "swapcase", "snakecase", "camelcase", "kebabcase",
	"wrap", "wrapWith", "contains", "hasPrefix", "hasSuffix", "quote", "squote", "cat", "indent", "nindent",
	"replace", "plural", "sha1sum", "sha256sum", "sha512sum", "adler32sum", "toString", "atoi", "int64", "int",
	"float64", "seq", "toDecimal", "split", "splitList", "splitn", "toStrings", "until", "untilStep",
	"add1", "add", "sub", "div", "mod", "mul", "add1f", "addf", "subf", "divf", "mulf", "biggest", "max", "min",
	"maxf", "minf", "ceil", "floor", "round", "join", "sortAlpha", "default", "empty", "coalesce", "all", "any",
	"compact", "mustCompact", "toPrettyJson", "mustToPrettyJson", "toRawJson", "mustToRawJson",
	"mustFromJson", "ternary", "deepCopy", "mustDeepCopy", "typeOf", "typeIs", "typeIsLike", "kindOf", "kindIs",
	"deepEqual", "b64enc", "b64dec", "b32enc", "b32dec", "tuple", "list", "dict", "get", "set", "unset", "hasKey",
	"pluck", "pick", "omit", "merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite", "append", "push",
	"mustAppend", "mustPush", "prepend", "mustPrepend", "first", "mustFirst", "rest", "mustRest", "last",
	"mustLast", "initial", "mustInitial", "reverse", "mustReverse", "uniq", "mustUniq", "without", "mustWithout",
	"has", "mustHas", "mustSlice", "concat", "dig", "chunk", "mustChunk",
	"base", "dir", "clean", "ext", "isAbs", "osBase", "osClean", "osDir", "osExt", "osIsAbs",
	"semver", "semverCompare", "regexMatch", "mustRegexMatch", "regexFindAll", "mustRegexFindAll",
	"regexFind", "mustRegexFind", "regexReplaceAll", "mustRegexReplaceAll", "regexReplaceAllLiteral",
	"mustRegexReplaceAllLiteral", "regexSplit", "mustRegexSplit", "regexQuoteMeta", "urlParse", "urlJoin",
	"decryptAES", "buildCustomCert", "toDate", "mustToDate", "dateModify", "date_modify", "mustDateModify",
	"must_date_modify", "unixEpoch", "duration",
)

// passThrough functions may return (part of) an argument unformatted:
// what their arguments may hold, their result may hold.
var passThrough = setOf(
	"and", "or", "index", "slice", "default", "coalesce", "ternary", "deepCopy", "mustDeepCopy", "tuple", "list",
	"dict", "get", "set", "unset", "pluck", "pick", "omit", "merge", "mergeOverwrite", "mustMerge",
	"mustMergeOverwrite", "append", "push", "mustAppend", "mustPush", "prepend", "mustPrepend", "first", "mustFirst",
	"rest", "mustRest", "last", "mustLast", "initial", "mustInitial", "reverse", "mustReverse", "uniq", "mustUniq",
	"without", "mustWithout", "mustSlice", "concat", "dig", "chunk", "mustChunk", "compact", "mustCompact", "required",
)

// opaqueOK functions take any argument and neither format it with fmt
// nor return it: a pointer passed to them never reaches the output.
var opaqueOK = setOf(
	"include", "not", "len", "eq", "ne", "lt", "le", "gt", "ge", "empty", "all", "any", "hasKey", "has", "mustHas",
	"typeOf", "typeIs", "typeIsLike", "kindOf", "kindIs", "deepEqual", "toYaml", "mustToYaml", "toYamlPretty",
	"toJson", "mustToJson", "toPrettyJson", "mustToPrettyJson", "toRawJson", "mustToRawJson",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var verdicts sync.Map // sha256 of a packaged chart -> bool

// ChartDeterministic applies the rules above to a packaged chart (.tgz).
func ChartDeterministic(chart []byte) bool {
	key := sha256.Sum256(chart)
	if v, ok := verdicts.Load(key); ok {
		return v.(bool)
	}
	files, ok := renderedTemplates(chart)
	ok = ok && TemplatesDeterministic(files)
	verdicts.Store(key, ok)
	return ok
}

// renderedTemplates returns the templates Helm renders from a packaged
// chart, every subchart's included, as Helm 3's and Helm 4's own loaders
// read the archive: the scan must see exactly what the engine executes,
// and the loaders have their own ways with entry types, backslashes and
// nesting that a tar walk of ours would miss. It is the union of both
// majors' views (the render that succeeded used one of them); ok is false
// when neither loads the chart, or one loads it and its templates cannot
// all be listed.
func renderedTemplates(tgz []byte) (out map[string]string, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false // a loader's panic (Helm 4 has some): render twice
		}
	}()
	out = map[string]string{}
	loaded := false
	if ch, err := loadArchive3(tgz); err == nil {
		loaded = true
		addTemplates3(out, ch)
	}
	if ch, err := loadArchive4(tgz); err == nil {
		loaded = true
		if !addTemplates4(out, ch, 0) {
			return nil, false
		}
	}
	return out, loaded
}

func addTemplates3(out map[string]string, ch *chart.Chart) {
	for _, t := range ch.Templates {
		out["helm3:"+ch.ChartFullPath()+"/"+t.Name] = string(t.Data)
	}
	for _, d := range ch.Dependencies() {
		addTemplates3(out, d)
	}
}

func addTemplates4(out map[string]string, ch chart4.Charter, depth int) bool {
	acc, err := chart4.NewAccessor(ch)
	if err != nil || depth > 64 {
		return false
	}
	for _, t := range acc.Templates() {
		out["helm4:"+acc.ChartFullPath()+"/"+t.Name] = string(t.Data)
	}
	for _, d := range acc.Dependencies() {
		if !addTemplates4(out, d, depth+1) {
			return false
		}
	}
	return true
}

// TemplatesDeterministic applies the rules above to a chart's template
// files (name to text), subcharts' included: they share one namespace of
// named templates, as in Helm.
func TemplatesDeterministic(files map[string]string) bool {
	a := &analysis{defines: map[string][]*parse.Tree{}, defDot: map[string]kind{}}
	var roots []*parse.Tree
	for name, text := range files {
		trees := map[string]*parse.Tree{}
		t := parse.New(name)
		t.Mode = parse.SkipFuncCheck
		if _, err := t.Parse(text, "", "", trees); err != nil {
			return false
		}
		for tn, tree := range trees {
			if tree.Root == nil {
				continue
			}
			if tn == name {
				roots = append(roots, tree)
			} else {
				a.defines[tn] = append(a.defines[tn], tree)
			}
		}
	}
	return a.run(roots)
}
