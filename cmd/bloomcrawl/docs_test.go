package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

// The repository's user documentation, relative to this package.
const (
	docsReadme    = "../../README.md"
	docsDir       = "../../docs"
	docsConfigRef = "../../docs/configuration.md"
)

// docFiles returns README.md and every docs/*.md, keyed by path, with their
// text.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, docsReadme)
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	return files
}

// helpFlagRE matches a flag name in the output of flag.PrintDefaults
// ("  -name value" at the start of a line).
var helpFlagRE = regexp.MustCompile(`(?m)^\s+-([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// helpFlags runs 'bloomcrawl args... -h' and returns the flag names it
// prints.
func helpFlags(t *testing.T, args ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(args, "-h"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("bloomcrawl %s -h: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	var names []string
	for _, m := range helpFlagRE.FindAllStringSubmatch(stderr.String()+stdout.String(), -1) {
		names = append(names, m[1])
	}
	return names
}

// querySubRE matches a subcommand's name in queryUsage's list (two spaces,
// the name, a space).
var querySubRE = regexp.MustCompile(`(?m)^  ([a-z]+) `)

// querySubDocumented reports whether some page shows a query command line
// with subcommand sub ("bloomcrawl query --store DIR sub ...").
func querySubDocumented(files map[string]string, sub string) bool {
	re := regexp.MustCompile(`bloomcrawl query( +-[^ \n]+( +[^- \n][^ \n]*)?)* +` + regexp.QuoteMeta(sub) + `\b`)
	for _, text := range files {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// mentionsFlag reports whether doc mentions --flag or -flag.
func mentionsFlag(doc, flag string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9-])--?` + regexp.QuoteMeta(flag) + `($|[^A-Za-z0-9_-])`)
	return re.MatchString(doc)
}

// TestDocsCommandsAndFlags checks that every registered subcommand
// (bench's included) and every flag it prints for -h is documented: the
// command's name appears in README.md or a docs page, and each flag appears
// as --flag or -flag in a page that names the command.
func TestDocsCommandsAndFlags(t *testing.T) {
	files := docFiles(t)

	type cmdFlags struct {
		name    string   // as a user types it after "bloomcrawl"
		mention []string // strings that show a page documents it
		flags   []string
	}
	var cmds []cmdFlags
	for name := range commands {
		if name == "bench" {
			continue // bench itself only dispatches; its benchmarks follow
		}
		cmds = append(cmds, cmdFlags{
			name:    name,
			mention: []string{"bloomcrawl " + name, "`" + name + "`"},
			flags:   helpFlags(t, name),
		})
	}
	for name := range benchmarks {
		cmds = append(cmds, cmdFlags{
			name: "bench " + name,
			// A lab benchmark moves to 'bloomcrawl-lab NAME' (same flags).
			mention: []string{"bench " + name, "bloomcrawl-lab " + name},
			flags:   helpFlags(t, "bench", name),
		})
	}
	// query's subcommands, as its usage lists them, have flags of their
	// own; they are documented on the pages that show "bloomcrawl query".
	_, list, _ := strings.Cut(queryUsage, "subcommands:")
	subs := querySubRE.FindAllStringSubmatch(list, -1)
	if len(subs) < 5 {
		t.Fatalf("found only %d query subcommands in queryUsage: its layout changed?", len(subs))
	}
	for _, m := range subs {
		sub := m[1]
		cmds = append(cmds, cmdFlags{
			name:    "query " + sub,
			mention: []string{"bloomcrawl query"},
			flags:   helpFlags(t, "query", sub),
		})
		if !querySubDocumented(files, sub) {
			t.Errorf("bloomcrawl query %s: no page shows a 'bloomcrawl query ... %s' command", sub, sub)
		}
	}
	if len(cmds) < 7 {
		t.Fatalf("found only %d commands: the registration changed?", len(cmds))
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })

	for _, c := range cmds {
		if len(c.flags) == 0 {
			// Every command has at least one flag; none found means the
			// -h output changed shape and this test would check nothing.
			t.Errorf("bloomcrawl %s -h: no flags found in its output", c.name)
		}
		var pages []string // the pages that document the command
		for p, text := range files {
			for _, m := range c.mention {
				if strings.Contains(text, m) {
					pages = append(pages, p)
					break
				}
			}
		}
		if len(pages) == 0 {
			t.Errorf("bloomcrawl %s: not documented in README.md or docs/*.md (looked for %q)", c.name, c.mention)
			continue
		}
		for _, f := range c.flags {
			found := false
			for _, p := range pages {
				if mentionsFlag(files[p], f) {
					found = true
					break
				}
			}
			if !found {
				sort.Strings(pages)
				t.Errorf("bloomcrawl %s: flag --%s is in none of the pages that document the command (%s)", c.name, f, strings.Join(pages, ", "))
			}
		}
	}
}

// yamlKeys returns the dotted YAML paths of t's leaf fields
// ("scope.max_depth"; a section such as "scope" is documented by its keys);
// a list of structs is listed itself and its elements' fields under the
// list's path plus "[]" ("recrawl.rules[].match").
func yamlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		path := prefix + tag
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			// A list documents itself and its elements' fields.
			keys = append(keys, path)
			keys = append(keys, yamlKeys(ft.Elem(), path+"[].")...)
		case ft.Kind() == reflect.Struct:
			sub := yamlKeys(ft, path+".")
			if len(sub) == 0 {
				sub = []string{path} // a struct read as one value (scope.sitemaps)
			}
			keys = append(keys, sub...)
		default:
			keys = append(keys, path)
		}
	}
	return keys
}

// TestDocsConfigKeys checks that every YAML key of configs.Config is in
// the configuration reference as `key` (a list element's field as
// `list[].field` or as `field:` on a page that names the list).
func TestDocsConfigKeys(t *testing.T) {
	b, err := os.ReadFile(docsConfigRef)
	if err != nil {
		t.Fatal(err)
	}
	ref := string(b)
	keys := yamlKeys(reflect.TypeOf(configs.Config{}), "")
	if len(keys) < 30 {
		t.Fatalf("found only %d config keys: the Config type changed shape?", len(keys))
	}
	t.Logf("%d keys: %s", len(keys), strings.Join(keys, " "))
	for _, k := range keys {
		if strings.Contains(ref, "`"+k+"`") {
			continue
		}
		if list, field, ok := strings.Cut(k, "[]."); ok && strings.Contains(ref, "`"+list+"`") && strings.Contains(ref, field+":") {
			continue
		}
		t.Errorf("%s: config key `%s` is not documented", docsConfigRef, k)
	}
}

var (
	mdLinkRE    = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdHeadingRE = regexp.MustCompile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$")
	fenceRE     = regexp.MustCompile("(?ms)^```.*?^```")
)

// githubSlug is the anchor GitHub gives a heading: lower case, punctuation
// dropped except '-' and '_', spaces become '-'.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 127 && (r < 0x2000 || r > 0x206F):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the GitHub anchors of the headings in a Markdown text
// (code blocks skipped; repeated headings get -1, -2…).
func anchors(text string) map[string]bool {
	text = fenceRE.ReplaceAllString(text, "")
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range mdHeadingRE.FindAllStringSubmatch(text, -1) {
		h := strings.NewReplacer("`", "", "*", "").Replace(m[1])
		s := githubSlug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocsLinks checks that every relative link and image in README.md and
// docs/*.md names an existing file, and every #anchor an existing heading.
func TestDocsLinks(t *testing.T) {
	files := docFiles(t)
	headings := map[string]map[string]bool{}
	for p, text := range files {
		headings[filepath.Clean(p)] = anchors(text)
	}
	checked := 0
	for p, text := range files {
		for _, m := range mdLinkRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := filepath.Clean(p)
			if file != "" {
				dest = filepath.Clean(filepath.Join(filepath.Dir(p), file))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: no file %s", p, target, dest)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			hs, ok := headings[dest]
			if !ok {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown documentation", p, target)
				continue
			}
			if !hs[anchor] {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", p, target, anchor, dest)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: the link pattern is broken")
	}
}

// TestDocsLayout checks that the README's Layout table names every package
// of the repository (as `path`, on a table row).
func TestDocsLayout(t *testing.T) {
	b, err := os.ReadFile(docsReadme)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| `") {
			rows = append(rows, l)
		}
	}
	var pkgs []string
	err = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != "../.." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "docs" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(p), "../../"))
		if !slices.Contains(pkgs, dir) && dir != "../.." {
			pkgs = append(pkgs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: %v", len(pkgs), pkgs)
	}
	for _, p := range pkgs {
		listed := false
		for _, r := range rows {
			if strings.Contains(r, "`"+p+"`") {
				listed = true
				break
			}
		}
		if !listed {
			t.Errorf("README.md: package %s is not in the Layout table", p)
		}
	}
}
