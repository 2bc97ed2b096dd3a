package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"io"
	"path"
	"strings"
	"sync"
	"text/template/parse"
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
//     reach fmt (an action's output or a function that formats it);
//   - every file under a templates/ directory of the chart and of its
//     subcharts (packaged ones too) parses.
//
// TestDeterministicChartsRenderTheSame renders every chart the scanner
// passes twice and compares the bytes; FuzzDeterministic does the same for
// generated templates.

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
	files, err := templateFiles(chart, 0)
	ok := err == nil && TemplatesDeterministic(files)
	verdicts.Store(key, ok)
	return ok
}

// templateFiles returns every file under a templates/ directory of a
// packaged chart, and of the packaged subcharts it holds.
func templateFiles(tgz []byte, depth int) (map[string]string, error) {
	if depth > 8 {
		return nil, errors.New("subcharts nested too deep")
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "/"))
		isTemplates := strings.Contains("/"+name, "/templates/")
		isSubchart := strings.HasSuffix(name, ".tgz") && strings.Contains("/"+name, "/charts/")
		if !isTemplates && !isSubchart {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 64<<20))
		if err != nil {
			return nil, err
		}
		if isSubchart {
			sub, err := templateFiles(data, depth+1)
			if err != nil {
				return nil, err
			}
			for k, v := range sub {
				out[name+"!"+k] = v
			}
			continue
		}
		out[name] = string(data)
	}
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
