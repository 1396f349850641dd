package configs

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Sitemaps is scope.sitemaps: which sitemaps a crawl reads. In YAML it is
// "auto", "off", or a list of sitemap URLs. The zero value is "auto".
type Sitemaps struct {
	// Off: no sitemap is read.
	Off bool
	// URLs, when not empty, are the only sitemaps read (sitemap index
	// files allowed; robots.txt's Sitemap: lines and /sitemap.xml are then
	// not looked at). Empty and not Off: "auto".
	URLs []string
}

// Auto reports whether the sitemaps are found automatically: the
// Sitemap: lines of each seed host's robots.txt and its /sitemap.xml.
func (s Sitemaps) Auto() bool { return !s.Off && len(s.URLs) == 0 }

// String is "auto", "off" or the URLs.
func (s Sitemaps) String() string {
	switch {
	case s.Off:
		return "off"
	case len(s.URLs) == 0:
		return "auto"
	}
	return fmt.Sprint(s.URLs)
}

// MarshalYAML writes "auto", "off" or the list of URLs.
func (s Sitemaps) MarshalYAML() (any, error) {
	if len(s.URLs) > 0 && !s.Off {
		return s.URLs, nil
	}
	return s.String(), nil
}

// UnmarshalYAML reads "auto", "off" or a list of URLs (checked by
// Validate).
func (s *Sitemaps) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Value {
		case "auto":
			*s = Sitemaps{}
			return nil
		case "off":
			*s = Sitemaps{Off: true}
			return nil
		}
	case yaml.SequenceNode:
		var urls []string
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return fmt.Errorf("expected a list of sitemap URLs, got %s in it", kindName(e))
			}
			urls = append(urls, e.Value)
		}
		*s = Sitemaps{URLs: urls}
		return nil
	}
	return fmt.Errorf("expected auto, off or a list of sitemap URLs, got %s", kindName(n))
}
