package configs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem with a configuration. Line is 0 when the problem is
// not tied to a line (Validate after command-line overrides, or a field that
// is missing from the file); File is empty when the Config did not come from
// a file.
type Error struct {
	File  string // file name given to Parse or Load
	Line  int    // 1-based line, 0 if unknown
	Field string // dotted path such as "scope.max_depth" or "seeds[1]"; empty for syntax errors
	Msg   string
}

// Error formats e as "file:line: field: msg", leaving out what is unknown;
// without a file it reads "configs: field: msg".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	default:
		b.WriteString("configs: ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxErrors caps the number of problems reported for one file.
const maxErrors = 20

// Parse decodes a YAML configuration. name is the file name used in errors.
// Fields left out keep their defaults (see Default); unknown fields, values
// of the wrong type and invalid values are errors of the form
// "name:LINE: field.path: message", all problems joined with errors.Join.
// An empty document gives the defaults. Parse checks everything Validate
// checks except that seeds may be empty.
func Parse(name string, data []byte) (*Config, error) {
	cfg := Default()
	cfg.name = name
	cfg.lines = map[string]int{}

	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // empty file: all defaults
		}
		return nil, syntaxError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: name, Line: extra.Line, Msg: "more than one YAML document; a config file holds one"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(name, err)
	}

	d := decoder{file: name, lines: cfg.lines}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	d.decode(root, reflect.ValueOf(cfg).Elem(), "")
	if len(d.errs) > 0 {
		return nil, d.joined()
	}
	if errs := cfg.check(false); len(errs) > 0 {
		for _, e := range errs {
			e.File = name
			e.Line = cfg.lineOf(e.Field)
		}
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, join(errs)
	}
	return cfg, nil
}

// lineOf returns the line of field, or of its nearest ancestor that has
// one, or 0.
func (c *Config) lineOf(field string) int {
	for field != "" {
		if l, ok := c.lines[field]; ok {
			return l
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return 0
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 parse error into an *Error with the line.
func syntaxError(name string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: line, Msg: "YAML syntax: " + m[2]}
	}
	return &Error{File: name, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}
}

func join(errs []*Error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	list := make([]error, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	return errors.Join(list...)
}

// decoder walks a yaml.Node tree against the Config struct by reflection,
// recording the line of every field and collecting every error.
type decoder struct {
	file  string
	lines map[string]int
	errs  []*Error
}

func (d *decoder) fail(n *yaml.Node, path, format string, a ...any) {
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &Error{File: d.file, Line: n.Line, Field: path, Msg: fmt.Sprintf(format, a...)})
	}
}

func (d *decoder) joined() error { return join(d.errs) }

var (
	durationType = reflect.TypeFor[Duration]()
	sitemapsType = reflect.TypeFor[Sitemaps]()
)

// decode stores node n into v, whose field path is path.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < 100; depth++ {
		n = n.Alias
	}
	if n.Kind == yaml.AliasNode {
		d.fail(n, path, "unresolvable alias")
		return
	}
	isNull := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
	t := v.Type()
	switch {
	case t == durationType:
		if isNull {
			d.fail(n, path, "no value given (leave the key out to use the default %s)", v.Interface())
			return
		}
		var dur Duration
		if err := n.Decode(&dur); err != nil {
			d.fail(n, path, "%s", err.Error())
			return
		}
		v.Set(reflect.ValueOf(dur))
	case t == sitemapsType:
		if isNull {
			d.fail(n, path, "no value given (leave the key out to use the default auto)")
			return
		}
		var sm Sitemaps
		if err := sm.UnmarshalYAML(n); err != nil {
			d.fail(n, path, "%s", err.Error())
			return
		}
		if n.Kind == yaml.SequenceNode {
			for i, e := range n.Content {
				d.lines[fmt.Sprintf("%s[%d]", path, i)] = e.Line
			}
		}
		v.Set(reflect.ValueOf(sm))
	case t.Kind() == reflect.Struct:
		if isNull {
			return // "scope:" with nothing under it: keep the defaults
		}
		if n.Kind != yaml.MappingNode {
			if path == "" {
				d.fail(n, path, "expected a mapping of fields at the top level, got %s", kindName(n))
				return
			}
			d.fail(n, path, "expected a mapping of fields, got %s", kindName(n))
			return
		}
		d.decodeStruct(n, v, path)
	case t.Kind() == reflect.Slice && (t.Elem().Kind() == reflect.String || t.Elem().Kind() == reflect.Struct):
		if isNull {
			v.Set(reflect.Zero(t))
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "expected a list, got %s", kindName(n))
			return
		}
		if len(n.Content) == 0 {
			v.Set(reflect.Zero(t)) // "[]" and nothing both read as nil
			return
		}
		out := reflect.MakeSlice(t, 0, len(n.Content))
		for i, e := range n.Content {
			ep := fmt.Sprintf("%s[%d]", path, i)
			d.lines[ep] = e.Line
			elem := reflect.New(t.Elem()).Elem()
			d.decode(e, elem, ep)
			out = reflect.Append(out, elem)
		}
		v.Set(out)
	default:
		d.decodeScalar(n, v, path, isNull)
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	fields := map[string]int{}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		known = append(known, tag)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(k, path, "field names must be plain strings, got %s", kindName(k))
			continue
		}
		fp := k.Value
		if path != "" {
			fp = path + "." + k.Value
		}
		if first, dup := seen[k.Value]; dup {
			d.fail(k, fp, "duplicate field (first given at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		idx, ok := fields[k.Value]
		if !ok {
			if k.Value == "<<" {
				d.fail(k, fp, "merge keys are not supported")
				continue
			}
			d.fail(k, fp, "unknown field%s", suggest(k.Value, known))
			continue
		}
		d.lines[fp] = k.Line
		d.decode(val, v.Field(idx), fp)
	}
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string, isNull bool) {
	want := map[reflect.Kind]string{
		reflect.Int: "an integer", reflect.Int64: "an integer", reflect.Uint64: "a non-negative integer",
		reflect.Float64: "a number", reflect.Bool: "true or false", reflect.String: "a string",
	}[v.Kind()]
	if want == "" {
		d.fail(n, path, "internal error: unsupported field type %s", v.Type())
		return
	}
	if isNull {
		d.fail(n, path, "no value given (leave the key out to use the default %v)", fmtDefault(v))
		return
	}
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "expected %s, got %s", want, kindName(n))
		return
	}
	if v.Kind() == reflect.String {
		// Any scalar reads as the text written ("user_agent: 42" is "42").
		v.SetString(n.Value)
		return
	}
	// yaml.v3 would truncate 1.5 into an int and read "yes" as a bool;
	// accept only the matching YAML type.
	tag := n.ShortTag()
	okTag := map[reflect.Kind]bool{
		reflect.Int: tag == "!!int", reflect.Int64: tag == "!!int", reflect.Uint64: tag == "!!int",
		reflect.Float64: tag == "!!float" || tag == "!!int", reflect.Bool: tag == "!!bool",
	}[v.Kind()]
	tmp := reflect.New(v.Type())
	if !okTag || n.Decode(tmp.Interface()) != nil {
		d.fail(n, path, "cannot use %q as %s", n.Value, want)
		return
	}
	if v.Kind() == reflect.Float64 && math.IsNaN(tmp.Elem().Float()) {
		d.fail(n, path, "cannot use %q as %s", n.Value, want)
		return
	}
	v.Set(tmp.Elem())
}

func fmtDefault(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v.Interface())
}

// kindName names the kind of a YAML node for error messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!int":
			return "the integer " + n.Value
		case "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		}
		return strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// suggest returns " (did you mean X?)" for the known field closest to name,
// or a list of the known fields when none is close.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(name), k); dist < bestD {
			best, bestD = k, dist
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " (known fields: " + strings.Join(known, ", ") + ")"
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
