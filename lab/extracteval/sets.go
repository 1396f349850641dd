package extracteval

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
)

//go:embed testdata/*/ground-truth.json.gz testdata/*/html/*.html.gz
var testdata embed.FS

// page is one labelled page of a set.
type page struct {
	key  string
	url  *url.URL
	html []byte
	body string // the labelled article body
}

// loadSet reads the set named name from fsys (a directory holding
// ground-truth.json.gz, {key: {"url", "articleBody"}}, and html/KEY.html.gz).
func loadSet(fsys fs.FS, name string) ([]page, error) {
	gt, err := readGz(fsys, path.Join(name, "ground-truth.json.gz"))
	if err != nil {
		return nil, err
	}
	var truth map[string]struct {
		URL         string `json:"url"`
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(gt, &truth); err != nil {
		return nil, fmt.Errorf("extracteval: %s ground truth: %w", name, err)
	}
	keys := make([]string, 0, len(truth))
	for k := range truth {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pages := make([]page, 0, len(keys))
	for _, k := range keys {
		b, err := readGz(fsys, path.Join(name, "html", k+".html.gz"))
		if err != nil {
			return nil, err
		}
		u, err := url.Parse(truth[k].URL)
		if err != nil || u.Host == "" {
			u = &url.URL{Scheme: "https", Host: k + ".invalid", Path: "/"}
		}
		pages = append(pages, page{key: k, url: u, html: b, body: truth[k].ArticleBody})
	}
	return pages, nil
}

func readGz(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", name, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", name, err)
	}
	return bytes.Clone(b), nil
}

// setNames lists the sets in fsys (its directories).
func setNames(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func site(u *url.URL) string { return strings.TrimPrefix(u.Hostname(), "www.") }
