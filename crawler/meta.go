package crawler

import (
	"encoding/json"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Meta is what a page states about itself. Empty fields are ones the page
// does not state.
type Meta struct {
	// Lang is the language of the page: <html lang>, else a
	// content-language meta, else JSON-LD inLanguage ("en", "zh-CN"), as
	// written.
	Lang string
	// Published is the publication date as the page writes it (an ISO
	// 8601 date or date-time in the usual sources): article:published_time,
	// JSON-LD datePublished, a date meta, else the first <time datetime>.
	Published string
	// Author is the author's name: JSON-LD author.name, a meta author,
	// article:author when it is a name rather than a URL.
	Author string
}

// pageMeta reads the page's language, publication date and author.
func pageMeta(sc *scan) Meta {
	var m Meta
	if sc.root != nil {
		if v, ok := attr(sc.root, "lang"); ok {
			m.Lang = strings.TrimSpace(v)
		}
	}
	ld := ldArticle(sc)
	metaVal := func(list []string) string {
		for _, want := range list {
			for _, n := range sc.metas {
				if name, _ := attr(n, "name"); strings.EqualFold(strings.TrimSpace(name), want) {
					if v, _ := attr(n, "content"); strings.TrimSpace(v) != "" {
						return strings.TrimSpace(v)
					}
				}
			}
			for _, n := range sc.props {
				p, ok := attr(n, "property")
				if !ok {
					p, _ = attr(n, "itemprop")
				}
				if strings.EqualFold(strings.TrimSpace(p), want) {
					if v, _ := attr(n, "content"); strings.TrimSpace(v) != "" {
						return strings.TrimSpace(v)
					}
				}
			}
		}
		return ""
	}
	if m.Lang == "" {
		m.Lang = metaVal([]string{"content-language", "language", "og:locale", "inLanguage"})
		if m.Lang == "" {
			m.Lang = ldString(ld["inLanguage"])
		}
	}
	m.Published = metaVal([]string{"article:published_time", "datePublished"})
	if m.Published == "" {
		m.Published = ldString(ld["datePublished"])
	}
	if m.Published == "" {
		m.Published = metaVal([]string{"og:published_time", "pubdate", "publishdate", "publish-date", "date", "dc.date", "dc.date.issued", "dcterms.date", "sailthru.date", "parsely-pub-date"})
	}
	if m.Published == "" && sc.time != nil {
		v, _ := attr(sc.time, "datetime")
		m.Published = strings.TrimSpace(v)
	}
	m.Author = ldAuthor(ld["author"])
	if m.Author == "" {
		m.Author = metaVal([]string{"author", "dc.creator", "byl", "parsely-author", "sailthru.author"})
		m.Author = strings.TrimSpace(strings.TrimPrefix(m.Author, "By "))
	}
	if m.Author == "" {
		if v := metaVal([]string{"article:author"}); v != "" && !strings.Contains(v, "://") {
			m.Author = v
		}
	}
	return m
}

// ldArticle returns the first JSON-LD object on the page whose @type is an
// Article kind (Article, NewsArticle, BlogPosting, Report…), looking into
// arrays and @graph; nil when there is none. The scripts are decoded once
// per page: the answer is kept on sc.
func ldArticle(sc *scan) map[string]any {
	if sc.ld == nil {
		sc.ld = &ldResult{}
		for _, n := range sc.ldjson {
			var v any
			if json.Unmarshal([]byte(nodeTextCheap(n)), &v) != nil {
				continue
			}
			if o := findArticle(v, 0); o != nil {
				sc.ld.article = o
				break
			}
		}
	}
	return sc.ld.article
}

// ldResult is a page's decoded JSON-LD Article (nil article: none).
type ldResult struct{ article map[string]any }

func findArticle(v any, depth int) map[string]any {
	if depth > 4 {
		return nil
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if o := findArticle(e, depth+1); o != nil {
				return o
			}
		}
	case map[string]any:
		if isArticleType(x["@type"]) {
			return x
		}
		if g, ok := x["@graph"]; ok {
			return findArticle(g, depth+1)
		}
	}
	return nil
}

func isArticleType(t any) bool {
	switch x := t.(type) {
	case string:
		return strings.HasSuffix(x, "Article") || x == "BlogPosting" || x == "Report" || x == "LiveBlogPosting" || x == "Posting"
	case []any:
		for _, e := range x {
			if isArticleType(e) {
				return true
			}
		}
	}
	return false
}

func ldString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case []any:
		if len(x) > 0 {
			return ldString(x[0])
		}
	case map[string]any:
		return ldString(x["name"])
	}
	return ""
}

// ldAuthor returns the author names of a JSON-LD author value, joined
// with ", ".
func ldAuthor(v any) string {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, "://") {
			return ""
		}
		return strings.TrimSpace(x)
	case map[string]any:
		return ldString(x["name"])
	case []any:
		var names []string
		for _, e := range x {
			if s := ldAuthor(e); s != "" {
				names = append(names, s)
			}
		}
		return strings.Join(names, ", ")
	}
	return ""
}

// fill copies what the page states about itself into p (its Markdown is
// rendered on read, from the stored HTML: see Markdown).
func (d *Document) fill(p *storage.Page) {
	p.Lang, p.Published, p.Author = d.Meta.Lang, d.Meta.Published, d.Meta.Author
	p.ServerHTML = d.serverHTML
	if d.Canonical != "" && d.Base != nil {
		if u, err := d.Base.Parse(d.Canonical); err == nil {
			p.Canonical = u.String()
		}
	}
}
